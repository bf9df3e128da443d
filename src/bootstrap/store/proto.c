/*
 * The config store's codec (see store/proto.h for the wire format): greeting
 * and frame encoding, a frame splitter and a strict decoder. Every length is
 * checked against the bytes present before it is used, so a hostile peer can
 * at worst make the caller close its connection.
 */
#include <stdlib.h>
#include <string.h>

#include "bootstrap/store/proto.h"

static const uint8_t store_magic[4] = {'S', 'H', 'S', 'T'};

/* ---- buffers ------------------------------------------------------------- */

shoal_status_t shoal_store_buf_reserve(shoal_store_buf_t *b, size_t more)
{
    if (b->off > 0 && b->off == b->len) {
        b->off = 0;
        b->len = 0;
    }
    if (b->cap - b->len >= more)
        return SHOAL_OK;
    if (b->off > 0) { /* slide the unread bytes to the front first */
        memmove(b->data, b->data + b->off, b->len - b->off);
        b->len -= b->off;
        b->off = 0;
        if (b->cap - b->len >= more)
            return SHOAL_OK;
    }
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < more) {
        if (cap > SIZE_MAX / 2)
            return SHOAL_ERR_NOMEM;
        cap *= 2;
    }
    uint8_t *data = realloc(b->data, cap);
    if (data == NULL)
        return SHOAL_ERR_NOMEM;
    b->data = data;
    b->cap = cap;
    return SHOAL_OK;
}

shoal_status_t shoal_store_buf_append(shoal_store_buf_t *b, const void *p, size_t n)
{
    if (n == 0)
        return SHOAL_OK;
    shoal_status_t status = shoal_store_buf_reserve(b, n);
    if (status != SHOAL_OK)
        return status;
    memcpy(b->data + b->len, p, n);
    b->len += n;
    return SHOAL_OK;
}

void shoal_store_buf_consume(shoal_store_buf_t *b, size_t n)
{
    b->off += n;
    if (b->off >= b->len)
        b->off = b->len = 0;
}

void shoal_store_buf_free(shoal_store_buf_t *b)
{
    free(b->data);
    *b = (shoal_store_buf_t){0};
}

/* ---- greetings ----------------------------------------------------------- */

void shoal_store_greeting_encode(uint8_t out[SHOAL_STORE_HELLO_BYTES], uint8_t security,
                                 const uint8_t key_id[SHOAL_STORE_KEY_ID_BYTES])
{
    memcpy(out, store_magic, 4);
    out[4] = SHOAL_STORE_PROTO_VERSION;
    out[5] = security;
    out[6] = 0;
    out[7] = 0;
    if (key_id != NULL)
        memcpy(out + 8, key_id, SHOAL_STORE_KEY_ID_BYTES);
    else
        memset(out + 8, 0, SHOAL_STORE_KEY_ID_BYTES);
}

shoal_status_t shoal_store_greeting_decode(const uint8_t in[SHOAL_STORE_HELLO_BYTES],
                                           uint8_t *version_p, uint8_t *security_p,
                                           uint8_t key_id_p[SHOAL_STORE_KEY_ID_BYTES])
{
    if (memcmp(in, store_magic, 4) != 0 || in[6] != 0 || in[7] != 0)
        return SHOAL_ERR_INVALID;
    *version_p = in[4];
    *security_p = in[5];
    memcpy(key_id_p, in + 8, SHOAL_STORE_KEY_ID_BYTES);
    return SHOAL_OK;
}

void shoal_store_reply_encode(uint8_t out[SHOAL_STORE_REPLY_BYTES], uint8_t security,
                              uint8_t verdict)
{
    memcpy(out, store_magic, 4);
    out[4] = SHOAL_STORE_PROTO_VERSION;
    out[5] = security;
    out[6] = verdict;
    out[7] = 0;
}

shoal_status_t shoal_store_reply_decode(const uint8_t in[SHOAL_STORE_REPLY_BYTES],
                                        uint8_t *version_p, uint8_t *security_p, uint8_t *verdict_p)
{
    if (memcmp(in, store_magic, 4) != 0 || in[7] != 0)
        return SHOAL_ERR_INVALID;
    *version_p = in[4];
    *security_p = in[5];
    *verdict_p = in[6];
    return SHOAL_OK;
}

/* ---- frames -------------------------------------------------------------- */

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint16_t get_u16(const uint8_t *p)
{
    return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

shoal_status_t shoal_store_frame_peek(const uint8_t *in, size_t len, size_t *frame_len_p,
                                      const char **why_p)
{
    if (len < SHOAL_STORE_FRAME_HEADER)
        return SHOAL_ERR_NOT_FOUND;
    uint32_t body = get_u32(in);
    uint16_t type = get_u16(in + 4);
    if (get_u16(in + 6) != 0) {
        *why_p = "reserved header bits are set";
        return SHOAL_ERR_INVALID;
    }
    if (type < SHOAL_STORE_MSG_HELLO || type > SHOAL_STORE_MSG_LAST) {
        *why_p = "unknown message type";
        return SHOAL_ERR_INVALID;
    }
    if (body >
        (type == SHOAL_STORE_MSG_GATHERED ? SHOAL_STORE_MAX_GATHERED : SHOAL_STORE_MAX_BODY)) {
        *why_p = "frame larger than the protocol allows";
        return SHOAL_ERR_INVALID;
    }
    if (len - SHOAL_STORE_FRAME_HEADER < body)
        return SHOAL_ERR_NOT_FOUND;
    *frame_len_p = SHOAL_STORE_FRAME_HEADER + (size_t)body;
    return SHOAL_OK;
}

/* A cursor over a frame body; the first rule broken sticks in `why`. */
typedef struct {
    const uint8_t *p;
    size_t left;
    const char *why;
} reader_t;

static uint32_t rd_u32(reader_t *r)
{
    if (r->why != NULL)
        return 0;
    if (r->left < 4) {
        r->why = "body too short";
        return 0;
    }
    uint32_t v = get_u32(r->p);
    r->p += 4;
    r->left -= 4;
    return v;
}

static shoal_store_span_t rd_span(reader_t *r, int wide, uint32_t min, uint32_t max, int text)
{
    shoal_store_span_t s = {NULL, 0};
    uint32_t n;
    if (r->why != NULL)
        return s;
    if (r->left < (wide ? 4u : 2u)) {
        r->why = "body too short";
        return s;
    }
    n = wide ? get_u32(r->p) : get_u16(r->p);
    r->p += wide ? 4 : 2;
    r->left -= wide ? 4 : 2;
    if (n < min || n > max) {
        r->why = "field length out of range";
        return s;
    }
    if (n > r->left) {
        r->why = "field runs past the end of the body";
        return s;
    }
    if (text && memchr(r->p, '\0', n) != NULL) {
        r->why = "NUL byte inside a string";
        return s;
    }
    s.ptr = r->p;
    s.len = n;
    r->p += n;
    r->left -= n;
    return s;
}

static uint32_t rd_rank(reader_t *r)
{
    uint32_t v = rd_u32(r);
    if (r->why == NULL && v >= SHOAL_STORE_MAX_NPES)
        r->why = "rank or PE count out of range";
    return v;
}

shoal_status_t shoal_store_decode(const uint8_t *frame, size_t len, shoal_store_msg_t *msg_p,
                                  const char **why_p)
{
    size_t frame_len;
    shoal_status_t status = shoal_store_frame_peek(frame, len, &frame_len, why_p);
    if (status == SHOAL_ERR_NOT_FOUND || (status == SHOAL_OK && frame_len != len)) {
        *why_p = "frame length does not match its header";
        return SHOAL_ERR_INVALID;
    }
    if (status != SHOAL_OK)
        return status;

    shoal_store_msg_t m;
    reader_t r = {frame + SHOAL_STORE_FRAME_HEADER, len - SHOAL_STORE_FRAME_HEADER, NULL};
    memset(&m, 0, sizeof(m));
    m.type = (shoal_store_msg_type_t)get_u16(frame + 4);
    switch (m.type) {
    case SHOAL_STORE_MSG_HELLO:
        m.u.hello.rank = rd_rank(&r);
        m.u.hello.npes = rd_rank(&r);
        m.u.hello.pid = rd_u32(&r);
        m.u.hello.host = rd_span(&r, 0, 1, SHOAL_STORE_MAX_TEXT, 1);
        if (r.why == NULL && (m.u.hello.npes == 0 || m.u.hello.rank >= m.u.hello.npes))
            r.why = "rank outside 0 .. npes - 1";
        break;
    case SHOAL_STORE_MSG_WELCOME:
        m.u.welcome.local_rank = rd_rank(&r);
        m.u.welcome.local_npes = rd_rank(&r);
        m.u.welcome.job_id = rd_span(&r, 0, 1, 63, 1);
        if (r.why == NULL && m.u.welcome.local_rank >= m.u.welcome.local_npes)
            r.why = "local rank outside 0 .. local_npes - 1";
        break;
    case SHOAL_STORE_MSG_REFUSE:
        m.u.refuse.code = rd_u32(&r);
        m.u.refuse.reason = rd_span(&r, 0, 0, SHOAL_STORE_MAX_TEXT, 1);
        break;
    case SHOAL_STORE_MSG_PUT:
    case SHOAL_STORE_MSG_ALLGATHER:
        m.u.put.key = rd_span(&r, 0, 1, SHOAL_STORE_MAX_KEY, 1);
        m.u.put.value = rd_span(&r, 1, 0, SHOAL_STORE_MAX_VALUE, 0);
        break;
    case SHOAL_STORE_MSG_GATHERED:
        m.u.gathered.count = rd_rank(&r);
        m.u.gathered.values.ptr = r.p;
        for (uint32_t i = 0; i < m.u.gathered.count && r.why == NULL; i++)
            (void)rd_span(&r, 1, 0, SHOAL_STORE_MAX_VALUE, 0);
        m.u.gathered.values.len = (uint32_t)(r.p - m.u.gathered.values.ptr);
        break;
    case SHOAL_STORE_MSG_GET:
        m.u.get.pe = rd_rank(&r);
        m.u.get.key = rd_span(&r, 0, 1, SHOAL_STORE_MAX_KEY, 1);
        break;
    case SHOAL_STORE_MSG_VALUE:
        m.u.value.value = rd_span(&r, 1, 0, SHOAL_STORE_MAX_VALUE, 0);
        break;
    case SHOAL_STORE_MSG_BARRIER:
    case SHOAL_STORE_MSG_BARRIER_DONE:
        break;
    case SHOAL_STORE_MSG_EVENT:
        m.u.event.event = rd_u32(&r);
        if (r.why == NULL && m.u.event.event != 1 && m.u.event.event != 2)
            r.why = "unknown event";
        break;
    case SHOAL_STORE_MSG_ABORT:
        m.u.abort.status = (int32_t)rd_u32(&r);
        m.u.abort.origin = rd_u32(&r);
        m.u.abort.message = rd_span(&r, 0, 0, SHOAL_STORE_MAX_TEXT, 1);
        if (r.why == NULL && m.u.abort.origin != SHOAL_STORE_NO_ORIGIN &&
            m.u.abort.origin >= SHOAL_STORE_MAX_NPES)
            r.why = "origin out of range";
        break;
    }
    if (r.why == NULL && r.left != 0)
        r.why = "bytes left over after the last field";
    if (r.why != NULL) {
        *why_p = r.why;
        return SHOAL_ERR_INVALID;
    }
    *msg_p = m;
    return SHOAL_OK;
}

/* ---- encoding ------------------------------------------------------------ */

static size_t span_size(shoal_store_span_t s, int wide)
{
    return (wide ? 4u : 2u) + s.len;
}

static uint8_t *wr_u32(uint8_t *p, uint32_t v)
{
    put_u32(p, v);
    return p + 4;
}

static uint8_t *wr_span(uint8_t *p, shoal_store_span_t s, int wide)
{
    if (wide) {
        put_u32(p, s.len);
        p += 4;
    } else {
        put_u16(p, (uint16_t)s.len);
        p += 2;
    }
    if (s.len)
        memcpy(p, s.ptr, s.len);
    return p + s.len;
}

shoal_status_t shoal_store_encode(shoal_store_buf_t *out, const shoal_store_msg_t *m)
{
    size_t body;
    const shoal_store_span_t *str16 = NULL; /* the one str16 field, if any */

    switch (m->type) {
    case SHOAL_STORE_MSG_HELLO:
        str16 = &m->u.hello.host;
        body = 12;
        break;
    case SHOAL_STORE_MSG_WELCOME:
        str16 = &m->u.welcome.job_id;
        body = 8;
        break;
    case SHOAL_STORE_MSG_REFUSE:
        str16 = &m->u.refuse.reason;
        body = 4;
        break;
    case SHOAL_STORE_MSG_PUT:
    case SHOAL_STORE_MSG_ALLGATHER:
        str16 = &m->u.put.key;
        body = span_size(m->u.put.value, 1);
        break;
    case SHOAL_STORE_MSG_GATHERED:
        body = 4 + (size_t)m->u.gathered.values.len;
        break;
    case SHOAL_STORE_MSG_GET:
        str16 = &m->u.get.key;
        body = 4;
        break;
    case SHOAL_STORE_MSG_VALUE:
        body = span_size(m->u.value.value, 1);
        break;
    case SHOAL_STORE_MSG_BARRIER:
    case SHOAL_STORE_MSG_BARRIER_DONE:
        body = 0;
        break;
    case SHOAL_STORE_MSG_EVENT:
        body = 4;
        break;
    case SHOAL_STORE_MSG_ABORT:
        str16 = &m->u.abort.message;
        body = 8;
        break;
    default:
        return SHOAL_ERR_INVALID;
    }
    if (str16 != NULL) {
        if (str16->len > SHOAL_STORE_MAX_TEXT)
            return SHOAL_ERR_INVALID;
        body += span_size(*str16, 0);
    }
    if (body >
        (m->type == SHOAL_STORE_MSG_GATHERED ? SHOAL_STORE_MAX_GATHERED : SHOAL_STORE_MAX_BODY))
        return SHOAL_ERR_INVALID;

    shoal_status_t status = shoal_store_buf_reserve(out, SHOAL_STORE_FRAME_HEADER + body);
    if (status != SHOAL_OK)
        return status;
    uint8_t *p = out->data + out->len;
    put_u32(p, (uint32_t)body);
    put_u16(p + 4, (uint16_t)m->type);
    put_u16(p + 6, 0);
    p += SHOAL_STORE_FRAME_HEADER;
    switch (m->type) {
    case SHOAL_STORE_MSG_HELLO:
        p = wr_u32(p, m->u.hello.rank);
        p = wr_u32(p, m->u.hello.npes);
        p = wr_u32(p, m->u.hello.pid);
        p = wr_span(p, m->u.hello.host, 0);
        break;
    case SHOAL_STORE_MSG_WELCOME:
        p = wr_u32(p, m->u.welcome.local_rank);
        p = wr_u32(p, m->u.welcome.local_npes);
        p = wr_span(p, m->u.welcome.job_id, 0);
        break;
    case SHOAL_STORE_MSG_REFUSE:
        p = wr_u32(p, m->u.refuse.code);
        p = wr_span(p, m->u.refuse.reason, 0);
        break;
    case SHOAL_STORE_MSG_PUT:
    case SHOAL_STORE_MSG_ALLGATHER:
        p = wr_span(p, m->u.put.key, 0);
        p = wr_span(p, m->u.put.value, 1);
        break;
    case SHOAL_STORE_MSG_GATHERED:
        p = wr_u32(p, m->u.gathered.count);
        if (m->u.gathered.values.len)
            memcpy(p, m->u.gathered.values.ptr, m->u.gathered.values.len);
        p += m->u.gathered.values.len;
        break;
    case SHOAL_STORE_MSG_GET:
        p = wr_u32(p, m->u.get.pe);
        p = wr_span(p, m->u.get.key, 0);
        break;
    case SHOAL_STORE_MSG_VALUE:
        p = wr_span(p, m->u.value.value, 1);
        break;
    case SHOAL_STORE_MSG_BARRIER:
    case SHOAL_STORE_MSG_BARRIER_DONE:
        break;
    case SHOAL_STORE_MSG_EVENT:
        p = wr_u32(p, m->u.event.event);
        break;
    case SHOAL_STORE_MSG_ABORT:
        p = wr_u32(p, (uint32_t)m->u.abort.status);
        p = wr_u32(p, m->u.abort.origin);
        p = wr_span(p, m->u.abort.message, 0);
        break;
    }
    out->len = (size_t)(p - out->data);
    return SHOAL_OK;
}

shoal_status_t shoal_store_bytes32_append(shoal_store_buf_t *b, const void *p, uint32_t len)
{
    shoal_status_t status = shoal_store_buf_reserve(b, 4 + (size_t)len);
    if (status != SHOAL_OK)
        return status;
    put_u32(b->data + b->len, len);
    if (len)
        memcpy(b->data + b->len + 4, p, len);
    b->len += 4 + (size_t)len;
    return SHOAL_OK;
}

shoal_store_span_t shoal_store_gathered_next(shoal_store_span_t *rest)
{
    shoal_store_span_t v = {NULL, 0};
    if (rest->len < 4)
        return v;
    v.len = get_u32(rest->ptr);
    v.ptr = rest->ptr + 4;
    if (v.len > rest->len - 4) /* not from the decoder: stop */
        v.len = rest->len - 4;
    rest->ptr += 4 + v.len;
    rest->len -= 4 + v.len;
    return v;
}

void shoal_store_span_str(shoal_store_span_t s, char *out, size_t size)
{
    size_t n = s.len < size - 1 ? s.len : size - 1;
    if (n)
        memcpy(out, s.ptr, n);
    out[n] = '\0';
}

const char *shoal_store_msg_name(uint32_t type)
{
    static const char *const names[] = {"?",     "HELLO",     "WELCOME", "REFUSE",       "PUT",
                                        "GET",   "VALUE",     "BARRIER", "BARRIER_DONE", "EVENT",
                                        "ABORT", "ALLGATHER", "GATHERED"};
    return type < sizeof(names) / sizeof(names[0]) ? names[type] : "?";
}

const char *shoal_store_security_name(uint8_t security)
{
    switch (security) {
    case SHOAL_STORE_SEC_PLAIN:
        return "no TLS";
    case SHOAL_STORE_SEC_PSK:
        return "TLS with the job secret";
    case SHOAL_STORE_SEC_CERT:
        return "TLS with certificates";
    default:
        return "an unknown security mode";
    }
}
