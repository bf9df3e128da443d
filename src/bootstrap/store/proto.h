/*
 * The config store's wire protocol: what travels between a PE and the store
 * (hosted by PE 0, or by the process that made a unique ID), and the codec
 * that turns bytes into checked messages and back. Nothing here does I/O,
 * so the decoder can be fuzzed on its own (fuzz/store_decode.c).
 *
 * A connection starts with a plaintext greeting in each direction:
 *   client -> store (16 bytes): "SHST", version, security, 0, 0, key id (8)
 *   store -> client  (8 bytes): "SHST", version, security, verdict, 0
 * `security` is the sender's mode (plain, TLS with the job secret, TLS with
 * certificates); the key id is derived from the job secret (zero otherwise),
 * so a wrong secret, a TLS/plaintext mismatch or another protocol version is
 * named exactly instead of surfacing as a failed handshake. Each side uses
 * its own configured mode: a mismatch is refused, never negotiated down.
 *
 * Then (inside TLS unless both sides are plain) come frames: an 8-byte
 * header (body length u32, type u16, reserved u16 = 0; big-endian) and the
 * body. Bodies are fixed-layout fields: u32/i32, str16 (u16 length + bytes,
 * no NUL) and bytes32 (u32 length + bytes). Decoding is strict: every field
 * is in range, the body is consumed exactly, and a frame over the limit is
 * an error before any of it is buffered.
 *
 *   HELLO        c->s  rank u32, npes u32, pid u32, host str16
 *   WELCOME      s->c  local_rank u32, local_npes u32, job_id str16
 *   REFUSE       s->c  code u32, reason str16          (then the store closes)
 *   PUT          c->s  key str16, value bytes32        (no reply)
 *   GET          c->s  pe u32, key str16               (VALUE once it exists)
 *   VALUE        s->c  value bytes32
 *   BARRIER      c->s  (empty)                         (BARRIER_DONE when all came)
 *   BARRIER_DONE s->c  (empty)
 *   EVENT        c->s  event u32 (shoal_bootstrap_event_t)
 *   ABORT        both  status i32, origin u32, message str16
 *   ALLGATHER    c->s  key str16, value bytes32        (GATHERED when all came)
 *   GATHERED     s->c  count u32, then count values, each a bytes32, in rank order
 *
 * ALLGATHER is the one request per PE that replaces npes GETs per PE: every
 * PE sends it with the same key (one allgather at a time, in the same order
 * on every PE), and the store answers all of them at once. A GATHERED frame
 * may be larger than any other (SHOAL_STORE_MAX_GATHERED).
 */
#ifndef SHOAL_BOOTSTRAP_STORE_PROTO_H
#define SHOAL_BOOTSTRAP_STORE_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

#define SHOAL_STORE_PROTO_VERSION 2 /* 2: ALLGATHER */

#define SHOAL_STORE_HELLO_BYTES 16 /* client greeting */
#define SHOAL_STORE_REPLY_BYTES 8  /* store's answer to it */
#define SHOAL_STORE_KEY_ID_BYTES 8

#define SHOAL_STORE_FRAME_HEADER 8
#define SHOAL_STORE_MAX_KEY 256
#define SHOAL_STORE_MAX_VALUE (1u << 20)
#define SHOAL_STORE_MAX_TEXT 1024 /* host ids, job ids, reasons, abort messages */
#define SHOAL_STORE_MAX_BODY (SHOAL_STORE_MAX_VALUE + SHOAL_STORE_MAX_KEY + 64)
#define SHOAL_STORE_MAX_GATHERED ((uint32_t)64 << 20) /* body of a GATHERED frame */
#define SHOAL_STORE_MAX_NPES (1 << 24)
#define SHOAL_STORE_NO_ORIGIN 0xffffffffu /* ABORT not from a PE (the store itself) */

typedef enum {
    SHOAL_STORE_SEC_PLAIN = 0,
    SHOAL_STORE_SEC_PSK = 1,  /* TLS 1.3, key derived from the job secret */
    SHOAL_STORE_SEC_CERT = 2, /* TLS 1.3, certificates from a CA */
} shoal_store_security_t;

/* The store's verdict on a greeting. */
typedef enum {
    SHOAL_STORE_GREET_OK = 0,
    SHOAL_STORE_GREET_VERSION = 1,      /* other protocol version */
    SHOAL_STORE_GREET_SECURITY = 2,     /* other security mode */
    SHOAL_STORE_GREET_WRONG_SECRET = 3, /* key id differs */
    SHOAL_STORE_GREET_CLOSED = 4,       /* the job has ended or failed */
    SHOAL_STORE_GREET_GARBAGE = 100,    /* not a greeting at all (never sent) */
} shoal_store_greet_t;

typedef enum {
    SHOAL_STORE_MSG_HELLO = 1,
    SHOAL_STORE_MSG_WELCOME = 2,
    SHOAL_STORE_MSG_REFUSE = 3,
    SHOAL_STORE_MSG_PUT = 4,
    SHOAL_STORE_MSG_GET = 5,
    SHOAL_STORE_MSG_VALUE = 6,
    SHOAL_STORE_MSG_BARRIER = 7,
    SHOAL_STORE_MSG_BARRIER_DONE = 8,
    SHOAL_STORE_MSG_EVENT = 9,
    SHOAL_STORE_MSG_ABORT = 10,
    SHOAL_STORE_MSG_ALLGATHER = 11,
    SHOAL_STORE_MSG_GATHERED = 12,
} shoal_store_msg_type_t;
#define SHOAL_STORE_MSG_LAST SHOAL_STORE_MSG_GATHERED

/* Why the store refused a HELLO. */
typedef enum {
    SHOAL_STORE_REFUSE_RANK_RANGE = 1,
    SHOAL_STORE_REFUSE_RANK_TAKEN = 2,
    SHOAL_STORE_REFUSE_NPES = 3,
    SHOAL_STORE_REFUSE_JOIN_TIMEOUT = 4,
    SHOAL_STORE_REFUSE_JOB_OVER = 5,
    SHOAL_STORE_REFUSE_RANK_BOUND = 6, /* the launcher gave this connection another rank */
    SHOAL_STORE_REFUSE_PE_LEFT = 7,    /* a PE that joined died before the job started */
} shoal_store_refuse_t;

/* A counted string or byte range inside a frame (not NUL-terminated). */
typedef struct {
    const uint8_t *ptr;
    uint32_t len;
} shoal_store_span_t;

/* A decoded message; its spans point into the frame it came from. */
typedef struct {
    shoal_store_msg_type_t type;
    union {
        struct {
            uint32_t rank, npes, pid;
            shoal_store_span_t host;
        } hello;
        struct {
            uint32_t local_rank, local_npes;
            shoal_store_span_t job_id;
        } welcome;
        struct {
            uint32_t code;
            shoal_store_span_t reason;
        } refuse;
        struct {
            shoal_store_span_t key, value;
        } put; /* also ALLGATHER */
        struct {
            uint32_t count;
            shoal_store_span_t values; /* count bytes32 fields, checked by the decoder */
        } gathered;
        struct {
            uint32_t pe;
            shoal_store_span_t key;
        } get;
        struct {
            shoal_store_span_t value;
        } value;
        struct {
            uint32_t event;
        } event;
        struct {
            int32_t status;
            uint32_t origin;
            shoal_store_span_t message;
        } abort;
    } u;
} shoal_store_msg_t;

/* A growable byte buffer; bytes [off, len) are unread. */
typedef struct {
    uint8_t *data;
    size_t off, len, cap;
} shoal_store_buf_t;

shoal_status_t shoal_store_buf_reserve(shoal_store_buf_t *b, size_t more);
shoal_status_t shoal_store_buf_append(shoal_store_buf_t *b, const void *p, size_t n);
void shoal_store_buf_consume(shoal_store_buf_t *b, size_t n);
void shoal_store_buf_free(shoal_store_buf_t *b);
static inline size_t shoal_store_buf_unread(const shoal_store_buf_t *b)
{
    return b->len - b->off;
}
static inline const uint8_t *shoal_store_buf_head(const shoal_store_buf_t *b)
{
    return b->data != NULL ? b->data + b->off : NULL; /* NULL + 0 is undefined */
}

/* Greetings. The client's key id is all zero unless security is PSK. */
void shoal_store_greeting_encode(uint8_t out[SHOAL_STORE_HELLO_BYTES], uint8_t security,
                                 const uint8_t key_id[SHOAL_STORE_KEY_ID_BYTES]);
/* Returns SHOAL_OK and the fields, or SHOAL_ERR_INVALID (no magic, nonzero
 * reserved bytes). The version is returned, not checked. */
shoal_status_t shoal_store_greeting_decode(const uint8_t in[SHOAL_STORE_HELLO_BYTES],
                                           uint8_t *version_p, uint8_t *security_p,
                                           uint8_t key_id_p[SHOAL_STORE_KEY_ID_BYTES]);
void shoal_store_reply_encode(uint8_t out[SHOAL_STORE_REPLY_BYTES], uint8_t security,
                              uint8_t verdict);
shoal_status_t shoal_store_reply_decode(const uint8_t in[SHOAL_STORE_REPLY_BYTES],
                                        uint8_t *version_p, uint8_t *security_p,
                                        uint8_t *verdict_p);

/*
 * Looks at the unread bytes of `in` for one whole frame. Returns SHOAL_OK
 * with its total size in *frame_len_p, SHOAL_ERR_NOT_FOUND when more bytes
 * are needed, or SHOAL_ERR_INVALID (with a reason) when the header is bad
 * or announces a body over SHOAL_STORE_MAX_BODY.
 */
shoal_status_t shoal_store_frame_peek(const uint8_t *in, size_t len, size_t *frame_len_p,
                                      const char **why_p);
/* Decodes one whole frame (header included). On SHOAL_ERR_INVALID, *why_p
 * says which rule the frame broke. */
shoal_status_t shoal_store_decode(const uint8_t *frame, size_t len, shoal_store_msg_t *msg_p,
                                  const char **why_p);
/* Appends the frame for `msg` to `out`. */
shoal_status_t shoal_store_encode(shoal_store_buf_t *out, const shoal_store_msg_t *msg);

/* Appends one bytes32 field (for building GATHERED's values). */
shoal_status_t shoal_store_bytes32_append(shoal_store_buf_t *b, const void *p, uint32_t len);
/* Takes the next value off a GATHERED message's checked values. */
shoal_store_span_t shoal_store_gathered_next(shoal_store_span_t *rest);

/* Helpers for callers that build messages from C strings. */
static inline shoal_store_span_t shoal_store_span(const void *p, size_t len)
{
    shoal_store_span_t s = {(const uint8_t *)p, (uint32_t)len};
    return s;
}
/* Copies a span into `out` as a NUL-terminated string, cut to fit. */
void shoal_store_span_str(shoal_store_span_t s, char *out, size_t size);

const char *shoal_store_msg_name(uint32_t type);
const char *shoal_store_security_name(uint8_t security);

#endif
