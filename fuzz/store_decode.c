/*
 * libFuzzer target for the config store's message decoder and the store
 * logic behind it (src/bootstrap/store/proto.c, store/logic.c): whatever
 * bytes arrive, the store must close the offending connection and never
 * crash, leak or corrupt its state.
 *
 * Each input is checked three ways:
 *  1. the whole input as one frame: frame_peek and decode must agree, and a
 *     frame that decodes must encode back to exactly the same bytes (the
 *     encoding is canonical, so the decoder accepts nothing else);
 *  2. the first bytes as a greeting, a greeting reply and a unique ID;
 *  3. the input as a script for an in-memory store with up to four
 *     connections: byte 0 sets the mode and the job size -- bit 7 set:
 *     launcher mode as shoalrun runs it (job size 1 + byte % 4, connection
 *     k bound to rank k, k < job size), else the config store (job size
 *     byte % 5, 0: from the first HELLO) -- then records [op][len][len
 *     bytes]: op & 3 picks the connection, op >> 2 is 0 feed the bytes to
 *     it, 1 close it, 2 let time pass, 3 open it again.
 *     In launcher mode the store must never send ABORT, never accept a PE
 *     under a rank other than its connection's, record the end of the job
 *     when it is over, and answer shoal_store_server_waits_for for every
 *     rank with a real waiter.
 * Build and run: fuzz/run_fuzz.sh (clang -fsanitize=fuzzer,address,undefined).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bootstrap/store/config.h"
#include "bootstrap/store/proto.h"
#include "bootstrap/store/logic.h"

#define PEERS 4

/* Launcher mode: what shoalrun relies on after every step. */
static void check_launcher(shoal_store_server_t *srv, shoal_store_peer_t *const peer[PEERS],
                           int npes)
{
    int status;
    uint32_t origin;
    const char *msg;

    if (shoal_store_server_over(srv) != shoal_store_server_ended(srv, &status, &origin, &msg))
        abort(); /* an end of the job the launcher would not see */
    if (shoal_store_server_over(srv) && (msg == NULL || strlen(msg) > SHOAL_STORE_MAX_TEXT))
        abort();
    for (int k = 0; k < PEERS; k++)
        if (peer[k] != NULL && peer[k]->rank >= 0 && peer[k]->bound_rank >= 0 &&
            peer[k]->rank != peer[k]->bound_rank)
            abort(); /* a PE joined under another PE's rank */
    for (int r = -1; r <= npes; r++) {
        shoal_store_wait_t w;
        if (!shoal_store_server_waits_for(srv, r, &w))
            continue;
        if (r < 0 || r >= npes || w.waiter < 0 || w.waiter >= npes || w.key == NULL ||
            (w.kind != SHOAL_STORE_MSG_GET && w.kind != SHOAL_STORE_MSG_BARRIER &&
             w.kind != SHOAL_STORE_MSG_ALLGATHER))
            abort(); /* a wait the launcher would report wrongly */
    }
}

static void check_frame(const uint8_t *data, size_t size)
{
    shoal_store_msg_t m;
    shoal_store_buf_t b = {0};
    const char *why = NULL;
    size_t flen = 0;

    shoal_status_t peek = shoal_store_frame_peek(data, size, &flen, &why);
    shoal_status_t dec = shoal_store_decode(data, size, &m, &why);
    if (dec == SHOAL_OK && (peek != SHOAL_OK || flen != size))
        abort(); /* decode accepted what the splitter would not */
    if (dec != SHOAL_OK)
        return;
    if (shoal_store_encode(&b, &m) != SHOAL_OK || b.len != size || memcmp(b.data, data, size))
        abort(); /* not canonical: two encodings of one message */
    shoal_store_buf_free(&b);
}

static void check_fixed(const uint8_t *data, size_t size)
{
    uint8_t v, s, k[SHOAL_STORE_KEY_ID_BYTES];
    if (size >= SHOAL_STORE_HELLO_BYTES)
        (void)shoal_store_greeting_decode(data, &v, &s, k);
    if (size >= SHOAL_STORE_REPLY_BYTES)
        (void)shoal_store_reply_decode(data, &v, &s, &v);
    if (size >= SHOAL_STORE_UNIQUEID_BYTES) {
        shoal_store_uid_t uid;
        char why[200];
        (void)shoal_store_uid_decode(data, &uid, why, sizeof(why));
    }
}

static void run_store(const uint8_t *data, size_t size)
{
    shoal_store_server_conf_t conf = {.join_timeout_ms = 1000, .job_id = "fuzz", .where = "fuzz"};
    shoal_store_server_t *srv;
    shoal_store_peer_t *peer[PEERS] = {0};
    uint64_t now = 1;

    if (size < 1)
        return;
    conf.launcher = data[0] >> 7;
    conf.npes = conf.launcher ? 1 + data[0] % 4 : data[0] % 5;
    if (conf.launcher)
        conf.join_timeout_ms = 0;
    if (shoal_store_server_create(&conf, &srv) != SHOAL_OK)
        return;
    for (int i = 0; i < PEERS; i++) {
        peer[i] = shoal_store_server_peer_new(srv, "fuzz");
        if (conf.launcher && i < conf.npes)
            shoal_store_server_peer_bind(peer[i], i);
    }
    for (size_t i = 1; i + 2 <= size;) {
        uint8_t op = data[i], len = data[i + 1];
        const uint8_t *p = data + i + 2;
        size_t n = size - i - 2 < len ? size - i - 2 : len;
        shoal_store_peer_t **slot = &peer[op & 3];
        i += 2 + n;
        switch (op >> 2 & 3) {
        case 0:
            if (*slot == NULL)
                break;
            if (shoal_store_buf_append(&(*slot)->in, p, n) != SHOAL_OK ||
                shoal_store_server_input(srv, *slot, now) != SHOAL_OK) {
                shoal_store_server_peer_gone(srv, *slot, now);
                *slot = NULL;
            }
            break;
        case 1:
            if (*slot != NULL)
                shoal_store_server_peer_gone(srv, *slot, now);
            *slot = NULL;
            break;
        case 2:
            now += (uint64_t)(n ? p[0] : 1) * 100;
            if (shoal_store_server_tick(srv, now) != UINT64_MAX && conf.launcher)
                abort(); /* no join timeout under a launcher */
            break;
        case 3:
            if (*slot == NULL) {
                *slot = shoal_store_server_peer_new(srv, "fuzz");
                if (*slot != NULL && conf.launcher && (op & 3) < conf.npes)
                    shoal_store_server_peer_bind(*slot, op & 3);
            }
            break;
        }
        /* What the store queued is what a client would get: it must decode. */
        for (int k = 0; k < PEERS; k++) {
            shoal_store_peer_t *q = peer[k];
            while (q != NULL && shoal_store_buf_unread(&q->out) > 0) {
                const char *why;
                size_t flen;
                shoal_store_msg_t m;
                if (shoal_store_frame_peek(shoal_store_buf_head(&q->out),
                                           shoal_store_buf_unread(&q->out), &flen,
                                           &why) != SHOAL_OK ||
                    shoal_store_decode(shoal_store_buf_head(&q->out), flen, &m, &why) != SHOAL_OK)
                    abort(); /* the store sent something malformed */
                if (conf.launcher && m.type == SHOAL_STORE_MSG_ABORT)
                    abort(); /* under a launcher, the launcher ends the PEs */
                shoal_store_buf_consume(&q->out, flen);
            }
        }
        if (conf.launcher)
            check_launcher(srv, peer, conf.npes);
    }
    int open = 0;
    for (int k = 0; k < PEERS; k++)
        open += peer[k] != NULL;
    if (shoal_store_server_npeers(srv) != open)
        abort(); /* the store lost count of its connections */
    shoal_store_server_destroy(srv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_frame(data, size);
    check_fixed(data, size);
    run_store(data, size);
    return 0;
}
