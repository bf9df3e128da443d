/*
 * Unit tests of the config store's parts that need no network: the codec
 * (round trips, and every strictness rule), unique IDs, job secrets,
 * tls_info, addresses, and the store's logic driven through in-memory peers
 * (joining, refusals, GET before PUT, barriers, a PE that dies, the join
 * timeout). Compiled from the sources; the library exports only the API.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../unit/unit_check.h"
#include "bootstrap/store/config.h"
#include "bootstrap/store/proto.h"
#include "bootstrap/store/logic.h"
#include "util/host_identity.h"
#include "util/log.h"

/* ---- codec --------------------------------------------------------------- */

static int roundtrip(const shoal_store_msg_t *m, shoal_store_msg_t *out, shoal_store_buf_t *b)
{
    const char *why = NULL;
    size_t flen = 0;
    b->off = b->len = 0;
    if (shoal_store_encode(b, m) != SHOAL_OK)
        return -1;
    if (shoal_store_frame_peek(b->data, b->len, &flen, &why) != SHOAL_OK || flen != b->len)
        return -2;
    return shoal_store_decode(b->data, b->len, out, &why) == SHOAL_OK ? 0 : -3;
}

static int span_is(shoal_store_span_t s, const char *text)
{
    return s.len == strlen(text) && memcmp(s.ptr, text, s.len) == 0;
}

static void test_codec(void)
{
    shoal_store_buf_t b = {0};
    shoal_store_msg_t m, d;
    static uint8_t big[SHOAL_STORE_MAX_VALUE];

    m = (shoal_store_msg_t){.type = SHOAL_STORE_MSG_HELLO};
    m.u.hello.rank = 3;
    m.u.hello.npes = 8;
    m.u.hello.pid = 1234;
    m.u.hello.host = shoal_store_span("h|b|n", 5);
    CHECK(roundtrip(&m, &d, &b) == 0);
    CHECK(d.type == SHOAL_STORE_MSG_HELLO && d.u.hello.rank == 3 && d.u.hello.npes == 8 &&
          d.u.hello.pid == 1234 && span_is(d.u.hello.host, "h|b|n"));

    m = (shoal_store_msg_t){.type = SHOAL_STORE_MSG_PUT};
    m.u.put.key = shoal_store_span("shm-addr", 8);
    m.u.put.value = shoal_store_span(big, sizeof(big));
    CHECK(roundtrip(&m, &d, &b) == 0);
    CHECK(d.u.put.value.len == sizeof(big) && span_is(d.u.put.key, "shm-addr"));

    m = (shoal_store_msg_t){.type = SHOAL_STORE_MSG_ABORT};
    m.u.abort.status = -3;
    m.u.abort.origin = SHOAL_STORE_NO_ORIGIN;
    m.u.abort.message = shoal_store_span("bye", 3);
    CHECK(roundtrip(&m, &d, &b) == 0);
    CHECK(d.u.abort.status == -3 && d.u.abort.origin == SHOAL_STORE_NO_ORIGIN);

    m = (shoal_store_msg_t){.type = SHOAL_STORE_MSG_BARRIER_DONE};
    CHECK(roundtrip(&m, &d, &b) == 0 && b.len == SHOAL_STORE_FRAME_HEADER);

    /* Strictness: each rule broken once. */
    const char *why;
    size_t flen;
    uint8_t f[64];
    memcpy(f, b.data, SHOAL_STORE_FRAME_HEADER); /* an empty BARRIER_DONE */
    CHECK(shoal_store_frame_peek(f, 7, &flen, &why) == SHOAL_ERR_NOT_FOUND);
    f[7] = 1; /* reserved bits */
    CHECK(shoal_store_frame_peek(f, 8, &flen, &why) == SHOAL_ERR_INVALID);
    f[7] = 0;
    f[5] = 99; /* unknown type */
    CHECK(shoal_store_frame_peek(f, 8, &flen, &why) == SHOAL_ERR_INVALID);
    f[5] = SHOAL_STORE_MSG_BARRIER;
    f[0] = 0x7f; /* oversize, rejected from the header alone */
    CHECK(shoal_store_frame_peek(f, 8, &flen, &why) == SHOAL_ERR_INVALID);
    f[0] = 0;
    f[3] = 1; /* BARRIER with a byte of body */
    f[8] = 'x';
    CHECK(shoal_store_decode(f, 9, &d, &why) == SHOAL_ERR_INVALID);
    f[3] = 0;
    CHECK(shoal_store_decode(f, 8, &d, &why) == SHOAL_OK);
    CHECK(shoal_store_decode(f, 9, &d, &why) == SHOAL_ERR_INVALID); /* length mismatch */

    /* HELLO with rank >= npes, a NUL in the host, an empty host. */
    m = (shoal_store_msg_t){.type = SHOAL_STORE_MSG_HELLO};
    m.u.hello.rank = 8;
    m.u.hello.npes = 8;
    m.u.hello.host = shoal_store_span("h", 1);
    CHECK(roundtrip(&m, &d, &b) == -3);
    m.u.hello.rank = 1;
    m.u.hello.host = shoal_store_span("a\0b", 3);
    CHECK(roundtrip(&m, &d, &b) == -3);
    m.u.hello.host = shoal_store_span("", 0);
    CHECK(roundtrip(&m, &d, &b) == -3);
    /* Keys of 0 and of MAX_KEY + 1 characters. */
    char key[SHOAL_STORE_MAX_KEY + 2];
    memset(key, 'k', sizeof(key));
    m = (shoal_store_msg_t){.type = SHOAL_STORE_MSG_GET};
    m.u.get.key = shoal_store_span(key, 0);
    CHECK(roundtrip(&m, &d, &b) == -3);
    m.u.get.key = shoal_store_span(key, SHOAL_STORE_MAX_KEY + 1);
    CHECK(roundtrip(&m, &d, &b) == -3);
    m.u.get.key = shoal_store_span(key, SHOAL_STORE_MAX_KEY);
    CHECK(roundtrip(&m, &d, &b) == 0);
    /* EVENT must be a known event. */
    m = (shoal_store_msg_t){.type = SHOAL_STORE_MSG_EVENT};
    m.u.event.event = 3;
    CHECK(roundtrip(&m, &d, &b) == -3);

    /* Greetings. */
    uint8_t g[SHOAL_STORE_HELLO_BYTES], kid[8] = {1, 2, 3, 4, 5, 6, 7, 8}, kid2[8];
    uint8_t version, security, verdict, r[SHOAL_STORE_REPLY_BYTES];
    shoal_store_greeting_encode(g, SHOAL_STORE_SEC_PSK, kid);
    CHECK(shoal_store_greeting_decode(g, &version, &security, kid2) == SHOAL_OK);
    CHECK(version == SHOAL_STORE_PROTO_VERSION && security == SHOAL_STORE_SEC_PSK &&
          memcmp(kid, kid2, 8) == 0);
    g[0] = 0x16; /* a TLS ClientHello starts so */
    CHECK(shoal_store_greeting_decode(g, &version, &security, kid2) == SHOAL_ERR_INVALID);
    shoal_store_reply_encode(r, SHOAL_STORE_SEC_PLAIN, SHOAL_STORE_GREET_WRONG_SECRET);
    CHECK(shoal_store_reply_decode(r, &version, &security, &verdict) == SHOAL_OK &&
          verdict == SHOAL_STORE_GREET_WRONG_SECRET);
    shoal_store_buf_free(&b);
}

/* ---- settings ------------------------------------------------------------ */

static void test_settings(void)
{
    uint8_t s[SHOAL_STORE_SECRET_BYTES];
    const char *hex = "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF";
    CHECK(shoal_store_parse_secret(hex, strlen(hex), "t", s) == SHOAL_OK);
    CHECK(s[0] == 0x00 && s[1] == 0x11 && s[31] == 0xff);
    char with_nl[80];
    snprintf(with_nl, sizeof(with_nl), "%s\n", hex);
    CHECK(shoal_store_parse_secret(with_nl, strlen(with_nl), "t", s) == SHOAL_OK);
    CHECK(shoal_store_parse_secret(hex, 62, "t", s) == SHOAL_ERR_INVALID);
    char bad[65];
    memcpy(bad, hex, 65);
    bad[10] = 'g';
    CHECK(shoal_store_parse_secret(bad, 64, "t", s) == SHOAL_ERR_INVALID);
    /* Keys easy to guess: all zero, one byte, patterns shorter than 16 bytes
     * repeated, few byte values. A 16-byte pattern (hex above) passes. */
    static const char *const weak[] = {
        "0000000000000000000000000000000000000000000000000000000000000000",
        "abababababababababababababababababababababababababababababababab",
        "deadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeefdeadbeef",
        "00112233445566778899aabbccddee00112233445566778899aabbccddee0011",
        "0000000000000000000000000000000000000000000000000000000000000001",
        "0102030401020304010203040102030401020304010203040102030401020305",
    };
    for (size_t i = 0; i < sizeof(weak) / sizeof(weak[0]); i++) {
        memset(s, 0x5a, sizeof(s));
        CHECK(shoal_store_parse_secret(weak[i], 64, "t", s) == SHOAL_ERR_INVALID);
        CHECK(s[0] == 0 && s[31] == 0); /* nothing of a refused key is left */
    }
    const char *random_key = "3f9c1d7ab2e04856c1f0e9a7d3b26c84a05e7f19d2c3b4a6e8f1027d9c5b3a61";
    CHECK(shoal_store_parse_secret(random_key, 64, "t", s) == SHOAL_OK);

    shoal_store_certs_t c;
    int has;
    CHECK(shoal_store_parse_tls_info("", 0, &c, &has) == SHOAL_OK && !has);
    CHECK(shoal_store_parse_tls_info(NULL, 0, &c, &has) == SHOAL_OK && !has);
    const char *info = " cert=/dev/null ; key=/dev/null;ca=/dev/null;verify_name=0 ";
    CHECK(shoal_store_parse_tls_info(info, strlen(info), &c, &has) == SHOAL_OK && has);
    CHECK(strcmp(c.cert, "/dev/null") == 0 && c.verify_name == 0 && c.crl[0] == '\0');
    CHECK(shoal_store_parse_tls_info("cert=/dev/null", 14, &c, &has) == SHOAL_ERR_INVALID);
    CHECK(shoal_store_parse_tls_info("pem=/dev/null", 13, &c, &has) == SHOAL_ERR_INVALID);
    CHECK(shoal_store_parse_tls_info("cert", 4, &c, &has) == SHOAL_ERR_INVALID);
    const char *missing = "cert=/nonexistent;key=/dev/null;ca=/dev/null";
    CHECK(shoal_store_parse_tls_info(missing, strlen(missing), &c, &has) == SHOAL_ERR_INVALID);

    shoal_store_addr_t a;
    char why[200];
    CHECK(shoal_store_addr_parse("127.0.0.1:5000", 1, &a, why, sizeof(why)) == SHOAL_OK &&
          a.port == 5000 && strcmp(a.host, "127.0.0.1") == 0);
    CHECK(shoal_store_addr_parse("[::1]:77", 1, &a, why, sizeof(why)) == SHOAL_OK && a.port == 77 &&
          strcmp(a.host, "::1") == 0);
    CHECK(shoal_store_addr_parse("::1", 9, &a, why, sizeof(why)) == SHOAL_OK && a.port == 9);
    CHECK(shoal_store_addr_parse("node7", 8666, &a, why, sizeof(why)) == SHOAL_OK &&
          a.port == 8666);
    CHECK(shoal_store_addr_parse("h:70000", 1, &a, why, sizeof(why)) == SHOAL_ERR_INVALID);
    CHECK(shoal_store_addr_parse("h:", 1, &a, why, sizeof(why)) == SHOAL_ERR_INVALID);
    CHECK(shoal_store_addr_parse("[::1", 1, &a, why, sizeof(why)) == SHOAL_ERR_INVALID);
    CHECK(shoal_store_addr_parse(":80", 1, &a, why, sizeof(why)) == SHOAL_ERR_INVALID);
    CHECK(shoal_store_addr_parse("a b:80", 1, &a, why, sizeof(why)) == SHOAL_ERR_INVALID);
    char text[64];
    a = (shoal_store_addr_t){.host = "::1", .port = 5};
    shoal_store_addr_format(&a, text, sizeof(text));
    CHECK(strcmp(text, "[::1]:5") == 0);
}

static void test_uniqueid(void)
{
    shoal_store_uid_t u = {0}, v;
    uint8_t id[SHOAL_STORE_UNIQUEID_BYTES];
    char why[200];
    char text[80];
    shoal_store_addr_t a = {.host = "::1", .port = 4242};

    CHECK(shoal_store_resolve(&a, &u.addr, why, sizeof(why)) == SHOAL_OK);
    for (int i = 0; i < SHOAL_STORE_SECRET_BYTES; i++)
        u.secret[i] = (uint8_t)(i * 7);
    shoal_store_uid_encode(&u, id);
    CHECK(shoal_store_uid_decode(id, &v, why, sizeof(why)) == SHOAL_OK);
    shoal_store_sockaddr_format(&v.addr, text, sizeof(text));
    CHECK(strcmp(text, "[::1]:4242") == 0);
    CHECK(memcmp(v.secret, u.secret, sizeof(u.secret)) == 0);
    id[40] ^= 1; /* a flipped bit in the secret */
    CHECK(shoal_store_uid_decode(id, &v, why, sizeof(why)) == SHOAL_ERR_INVALID);
    id[40] ^= 1;
    id[100] = 1; /* reserved */
    CHECK(shoal_store_uid_decode(id, &v, why, sizeof(why)) == SHOAL_ERR_INVALID);
    id[100] = 0;
    id[4] = 2; /* another format version */
    CHECK(shoal_store_uid_decode(id, &v, why, sizeof(why)) == SHOAL_ERR_INVALID);
    memset(id, 0, sizeof(id));
    CHECK(shoal_store_uid_decode(id, &v, why, sizeof(why)) == SHOAL_ERR_INVALID);
}

/* ---- the store's logic --------------------------------------------------- */

static shoal_store_server_t *srv;

static void feed(shoal_store_peer_t *p, const shoal_store_msg_t *m, uint64_t now)
{
    shoal_store_encode(&p->in, m);
    shoal_store_server_input(srv, p, now);
}

static void hello(shoal_store_peer_t *p, uint32_t rank, uint32_t npes, const char *host)
{
    shoal_store_msg_t m = {.type = SHOAL_STORE_MSG_HELLO};
    m.u.hello.rank = rank;
    m.u.hello.npes = npes;
    m.u.hello.pid = 100 + rank;
    m.u.hello.host = shoal_store_span(host, strlen(host));
    feed(p, &m, 1000);
}

/* Takes the next frame sent to `p`; its type, or 0 when there is none. */
static int next_out(shoal_store_peer_t *p, shoal_store_msg_t *m)
{
    const char *why;
    size_t len;
    if (shoal_store_frame_peek(shoal_store_buf_head(&p->out), shoal_store_buf_unread(&p->out), &len,
                               &why) != SHOAL_OK)
        return 0;
    if (shoal_store_decode(shoal_store_buf_head(&p->out), len, m, &why) != SHOAL_OK)
        return -1;
    shoal_store_buf_consume(&p->out, len);
    return (int)m->type;
}

static void test_server(void)
{
    shoal_store_server_conf_t conf = {.npes = 3, .join_timeout_ms = 5000, .job_id = "stjob"};
    shoal_store_peer_t *p[5];
    shoal_store_msg_t m;

    CHECK(shoal_store_server_create(&conf, &srv) == SHOAL_OK);
    for (int i = 0; i < 5; i++)
        p[i] = shoal_store_server_peer_new(srv, "test");
    hello(p[0], 0, 3, "hostA");
    hello(p[1], 2, 3, "hostB");
    CHECK(next_out(p[0], &m) == 0); /* not all here yet */
    hello(p[2], 2, 3, "hostA");     /* rank 2 is taken */
    CHECK(next_out(p[2], &m) == SHOAL_STORE_MSG_REFUSE &&
          m.u.refuse.code == SHOAL_STORE_REFUSE_RANK_TAKEN && p[2]->closing);
    hello(p[3], 1, 4, "hostA"); /* other job size */
    CHECK(next_out(p[3], &m) == SHOAL_STORE_MSG_REFUSE &&
          m.u.refuse.code == SHOAL_STORE_REFUSE_NPES);
    hello(p[4], 3, 4, "hostA"); /* outside the job */
    CHECK(next_out(p[4], &m) == SHOAL_STORE_MSG_REFUSE &&
          m.u.refuse.code == SHOAL_STORE_REFUSE_RANK_RANGE);
    shoal_store_server_peer_gone(srv, p[2], 1000);
    shoal_store_server_peer_gone(srv, p[3], 1000);
    shoal_store_server_peer_gone(srv, p[4], 1000);
    CHECK(!shoal_store_server_over(srv));

    p[2] = shoal_store_server_peer_new(srv, "test");
    hello(p[2], 1, 3, "hostA");
    CHECK(shoal_store_server_started(srv));
    /* Ranks 0 and 1 share hostA, rank 2 is alone on hostB. */
    CHECK(next_out(p[0], &m) == SHOAL_STORE_MSG_WELCOME && m.u.welcome.local_rank == 0 &&
          m.u.welcome.local_npes == 2 && span_is(m.u.welcome.job_id, "stjob"));
    CHECK(next_out(p[2], &m) == SHOAL_STORE_MSG_WELCOME && m.u.welcome.local_rank == 1);
    CHECK(next_out(p[1], &m) == SHOAL_STORE_MSG_WELCOME && m.u.welcome.local_npes == 1);

    /* GET before PUT waits for it; a second request meanwhile is an error. */
    shoal_store_msg_t get = {.type = SHOAL_STORE_MSG_GET};
    get.u.get.pe = 2;
    get.u.get.key = shoal_store_span("k", 1);
    feed(p[0], &get, 1000);
    CHECK(next_out(p[0], &m) == 0);
    shoal_store_msg_t put = {.type = SHOAL_STORE_MSG_PUT};
    put.u.put.key = shoal_store_span("k", 1);
    put.u.put.value = shoal_store_span("value", 5);
    feed(p[1], &put, 1000); /* p[1] is rank 2 */
    CHECK(next_out(p[0], &m) == SHOAL_STORE_MSG_VALUE && span_is(m.u.value.value, "value"));
    feed(p[2], &get, 1000); /* now at once */
    CHECK(next_out(p[2], &m) == SHOAL_STORE_MSG_VALUE);

    shoal_store_msg_t bar = {.type = SHOAL_STORE_MSG_BARRIER};
    feed(p[0], &bar, 1000);
    feed(p[1], &bar, 1000);
    CHECK(next_out(p[0], &m) == 0);
    CHECK(shoal_store_encode(&p[1]->in, &bar) == SHOAL_OK); /* second request: error */
    CHECK(shoal_store_server_input(srv, p[1], 1000) == SHOAL_ERR_INVALID);
    p[1]->in.off = p[1]->in.len = 0;
    feed(p[2], &bar, 1000);
    CHECK(next_out(p[0], &m) == SHOAL_STORE_MSG_BARRIER_DONE);
    CHECK(next_out(p[1], &m) == SHOAL_STORE_MSG_BARRIER_DONE);
    CHECK(next_out(p[2], &m) == SHOAL_STORE_MSG_BARRIER_DONE);

    /* ALLGATHER: held until all three came, then every PE gets every value in
     * rank order (lengths differ, one is empty), one request per PE. */
    shoal_store_msg_t ag = {.type = SHOAL_STORE_MSG_ALLGATHER};
    ag.u.put.key = shoal_store_span("ag", 2);
    ag.u.put.value = shoal_store_span("r2-value", 8);
    feed(p[1], &ag, 1000); /* rank 2 */
    ag.u.put.value = shoal_store_span("zero", 4);
    feed(p[0], &ag, 1000); /* rank 0 */
    CHECK(next_out(p[0], &m) == 0 && next_out(p[1], &m) == 0);
    ag.u.put.value = shoal_store_span(NULL, 0);
    feed(p[2], &ag, 1000); /* rank 1 */
    for (int i = 0; i < 3; i++) {
        CHECK(next_out(p[i], &m) == SHOAL_STORE_MSG_GATHERED && m.u.gathered.count == 3);
        shoal_store_span_t rest = m.u.gathered.values;
        CHECK(span_is(shoal_store_gathered_next(&rest), "zero"));
        CHECK(shoal_store_gathered_next(&rest).len == 0);
        CHECK(span_is(shoal_store_gathered_next(&rest), "r2-value") && rest.len == 0);
    }
    /* A GATHERED frame survives the codec; a truncated one does not. */
    {
        shoal_store_buf_t b = {0}, rb = {0};
        shoal_store_msg_t g = {.type = SHOAL_STORE_MSG_GATHERED}, back;
        const char *why = NULL;
        CHECK(shoal_store_bytes32_append(&b, "ab", 2) == SHOAL_OK &&
              shoal_store_bytes32_append(&b, "", 0) == SHOAL_OK);
        g.u.gathered.count = 2;
        g.u.gathered.values = shoal_store_span(b.data, b.len);
        CHECK(roundtrip(&g, &back, &rb) == 0 && back.u.gathered.count == 2 &&
              back.u.gathered.values.len == b.len);
        shoal_store_buf_free(&rb);
        g.u.gathered.count = 3; /* claims a value it does not hold */
        shoal_store_buf_t f = {0};
        CHECK(shoal_store_encode(&f, &g) == SHOAL_OK);
        CHECK(shoal_store_decode(f.data, f.len, &back, &why) == SHOAL_ERR_INVALID && why != NULL);
        shoal_store_buf_free(&f);
        shoal_store_buf_free(&b);
    }

    /* Rank 1 finalizes and leaves quietly; rank 2 dies: ABORT to the rest. */
    shoal_store_msg_t ev = {.type = SHOAL_STORE_MSG_EVENT};
    ev.u.event.event = 2;
    feed(p[2], &ev, 1000);
    shoal_store_server_peer_gone(srv, p[2], 1000);
    CHECK(!shoal_store_server_over(srv));
    shoal_store_server_peer_gone(srv, p[1], 1000);
    CHECK(shoal_store_server_over(srv));
    CHECK(next_out(p[0], &m) == SHOAL_STORE_MSG_ABORT && m.u.abort.status == 1 &&
          m.u.abort.origin == SHOAL_STORE_NO_ORIGIN);
    CHECK(shoal_store_server_finished(srv));
    shoal_store_server_destroy(srv);

    /* The join timeout names the missing ranks; npes from the first HELLO. */
    conf.npes = 0;
    CHECK(shoal_store_server_create(&conf, &srv) == SHOAL_OK);
    p[0] = shoal_store_server_peer_new(srv, "test");
    hello(p[0], 1, 4, "h");
    CHECK(shoal_store_server_tick(srv, 2000) == 6000);
    shoal_store_server_tick(srv, 6000);
    CHECK(next_out(p[0], &m) == SHOAL_STORE_MSG_REFUSE &&
          m.u.refuse.code == SHOAL_STORE_REFUSE_JOIN_TIMEOUT);
    char reason[400];
    shoal_store_span_str(m.u.refuse.reason, reason, sizeof(reason));
    CHECK(strstr(reason, "missing rank(s): 0 2 3") != NULL);
    shoal_store_server_destroy(srv);
}

/* A PE that joined and dies before every PE joined ends the start at once:
 * the others are told its name (not left to the join timeout), and a PE
 * that comes later is refused. */
static void test_server_join_death(void)
{
    shoal_store_server_conf_t conf = {.npes = 4, .join_timeout_ms = 60000, .job_id = "jdjob"};
    shoal_store_peer_t *p[4];
    shoal_store_msg_t m;
    char reason[SHOAL_STORE_MAX_TEXT + 1];

    CHECK(shoal_store_server_create(&conf, &srv) == SHOAL_OK);
    for (int i = 0; i < 4; i++)
        p[i] = shoal_store_server_peer_new(srv, "test");
    hello(p[0], 0, 4, "hostA");
    hello(p[1], 1, 4, "hostA");
    hello(p[3], 3, 4, "hostB");
    CHECK(!shoal_store_server_started(srv) && !shoal_store_server_over(srv));
    /* A client that never said HELLO going away changes nothing. */
    shoal_store_server_peer_gone(srv, p[2], 1000);
    CHECK(!shoal_store_server_over(srv));
    shoal_store_server_peer_gone(srv, p[3], 1500);
    CHECK(shoal_store_server_over(srv) && shoal_store_server_finished(srv));
    for (int i = 0; i < 2; i++) {
        CHECK(next_out(p[i], &m) == SHOAL_STORE_MSG_REFUSE &&
              m.u.refuse.code == SHOAL_STORE_REFUSE_PE_LEFT && p[i]->closing);
        shoal_store_span_str(m.u.refuse.reason, reason, sizeof(reason));
        CHECK(strstr(reason, "PE 3 (pid ") != NULL &&
              strstr(reason, "while the job was starting (3 of 4 PEs had joined)") != NULL);
    }
    /* The join timeout has nothing left to do. */
    CHECK(shoal_store_server_tick(srv, 100000) == UINT64_MAX);
    CHECK(next_out(p[0], &m) == 0);
    /* Rank 2 comes late: the job is over. */
    p[2] = shoal_store_server_peer_new(srv, "test");
    hello(p[2], 2, 4, "hostB");
    CHECK(next_out(p[2], &m) == SHOAL_STORE_MSG_REFUSE &&
          m.u.refuse.code == SHOAL_STORE_REFUSE_JOB_OVER);
    shoal_store_server_destroy(srv);
}

/* The logic as shoalrun hosts it: connections bound to ranks, HELLO answered
 * at once, no ABORT sent, the end of the job recorded, and who waits for a
 * PE that is gone. */
static void test_server_launcher(void)
{
    shoal_store_server_conf_t conf = {.npes = 3, .job_id = "lrjob", .launcher = 1};
    shoal_store_peer_t *p[3];
    shoal_store_msg_t m;
    shoal_store_wait_t w;
    int status;
    uint32_t origin;
    const char *msg;

    CHECK(shoal_store_server_create(&conf, &srv) == SHOAL_OK);
    CHECK(shoal_store_server_started(srv)); /* shoalrun started every PE */
    for (int i = 0; i < 3; i++) {
        p[i] = shoal_store_server_peer_new(srv, "pair");
        shoal_store_server_peer_bind(p[i], i);
    }
    /* PE 1 claims rank 0 on its own socketpair: refused, rank 0 stays free. */
    hello(p[1], 0, 3, "h");
    CHECK(next_out(p[1], &m) == SHOAL_STORE_MSG_REFUSE &&
          m.u.refuse.code == SHOAL_STORE_REFUSE_RANK_BOUND && p[1]->closing);
    shoal_store_server_peer_gone(srv, p[1], 1000);
    CHECK(!shoal_store_server_over(srv));
    p[1] = shoal_store_server_peer_new(srv, "pair");
    shoal_store_server_peer_bind(p[1], 1);
    /* WELCOME at once, local rank = rank, before the others joined. */
    hello(p[1], 1, 3, "h");
    CHECK(next_out(p[1], &m) == SHOAL_STORE_MSG_WELCOME && m.u.welcome.local_rank == 1 &&
          m.u.welcome.local_npes == 3 && span_is(m.u.welcome.job_id, "lrjob"));
    hello(p[0], 0, 3, "h");
    CHECK(next_out(p[0], &m) == SHOAL_STORE_MSG_WELCOME && m.u.welcome.local_rank == 0);

    /* PE 0 waits in a barrier; PE 2, which never joined, is what it waits for. */
    shoal_store_msg_t bar = {.type = SHOAL_STORE_MSG_BARRIER};
    feed(p[0], &bar, 1000);
    CHECK(shoal_store_server_waits_for(srv, 2, &w) && w.kind == SHOAL_STORE_MSG_BARRIER &&
          w.waiter == 0);
    CHECK(shoal_store_server_waits_for(srv, 0, &w) == 0); /* it is in the barrier itself */
    /* A second request while one waits: refused, with the reason for shoalrun. */
    CHECK(shoal_store_encode(&p[0]->in, &bar) == SHOAL_OK);
    CHECK(shoal_store_server_input(srv, p[0], 1000) == SHOAL_ERR_INVALID &&
          strstr(p[0]->error, "second request") != NULL);
    p[0]->in.off = p[0]->in.len = 0;
    feed(p[1], &bar, 1000);
    hello(p[2], 2, 3, "h");
    CHECK(next_out(p[2], &m) == SHOAL_STORE_MSG_WELCOME);
    feed(p[2], &bar, 1000);
    for (int i = 0; i < 3; i++)
        CHECK(next_out(p[i], &m) == SHOAL_STORE_MSG_BARRIER_DONE);
    CHECK(shoal_store_server_waits_for(srv, 2, &w) == 0);

    /* PE 0 waits for a key of PE 1, which leaves before finalizing: no
     * ABORT (shoalrun judges the exit), and the wait is named. */
    shoal_store_msg_t get = {.type = SHOAL_STORE_MSG_GET};
    get.u.get.pe = 1;
    get.u.get.key = shoal_store_span("never", 5);
    feed(p[0], &get, 1000);
    shoal_store_server_peer_gone(srv, p[1], 1000);
    CHECK(!shoal_store_server_over(srv) && next_out(p[0], &m) == 0);
    CHECK(shoal_store_server_waits_for(srv, 1, &w) && w.kind == SHOAL_STORE_MSG_GET &&
          w.waiter == 0 && strcmp(w.key, "never") == 0);

    /* PE 2 ends the job: recorded for shoalrun, no ABORT to the others. */
    shoal_store_msg_t ab = {.type = SHOAL_STORE_MSG_ABORT};
    ab.u.abort.status = 5;
    ab.u.abort.origin = 2;
    ab.u.abort.message = shoal_store_span("bye", 3);
    CHECK(!shoal_store_server_ended(srv, &status, &origin, &msg));
    feed(p[2], &ab, 1000);
    CHECK(shoal_store_server_ended(srv, &status, &origin, &msg) && status == 5 && origin == 2 &&
          strcmp(msg, "bye") == 0);
    CHECK(next_out(p[0], &m) == 0 && next_out(p[2], &m) == 0);
    CHECK(shoal_store_server_waits_for(srv, 1, &w) == 0); /* the job is over */
    shoal_store_server_destroy(srv);

    /* PEs in different allgathers: the store's own end, with its message. */
    conf.npes = 2;
    CHECK(shoal_store_server_create(&conf, &srv) == SHOAL_OK);
    for (int i = 0; i < 2; i++) {
        p[i] = shoal_store_server_peer_new(srv, "pair");
        shoal_store_server_peer_bind(p[i], i);
        hello(p[i], (uint32_t)i, 2, "h");
        CHECK(next_out(p[i], &m) == SHOAL_STORE_MSG_WELCOME);
    }
    shoal_store_msg_t ag = {.type = SHOAL_STORE_MSG_ALLGATHER};
    ag.u.put.key = shoal_store_span("first", 5);
    ag.u.put.value = shoal_store_span("x", 1);
    feed(p[0], &ag, 1000);
    CHECK(shoal_store_server_waits_for(srv, 1, &w) && w.kind == SHOAL_STORE_MSG_ALLGATHER &&
          strcmp(w.key, "first") == 0);
    ag.u.put.key = shoal_store_span("second", 6);
    feed(p[1], &ag, 1000);
    CHECK(shoal_store_server_ended(srv, &status, &origin, &msg) && status == 1 &&
          origin == SHOAL_STORE_NO_ORIGIN &&
          strstr(msg, "PE 1 entered the bootstrap allgather 'second' while other PEs are in "
                      "'first'") != NULL);
    CHECK(next_out(p[0], &m) == 0 && next_out(p[1], &m) == 0);
    shoal_store_server_destroy(srv);
}

/* Host identities: equal for this process twice; readable in messages. */
static void test_host(void)
{
    char a[256], b[256], label[128];
    shoal_host_identity(a, sizeof(a));
    shoal_host_identity(b, sizeof(b));
    CHECK(strcmp(a, b) == 0 && strchr(a, '|') != NULL);
    shoal_host_label("node7|0b1c-boot|net:[4026531840]", label, sizeof(label));
    CHECK(strcmp(label, "node7, net:[4026531840]") == 0);
    shoal_host_label("node:pretend1", label, sizeof(label));
    CHECK(strcmp(label, "node:pretend1") == 0);
}

int main(void)
{
    shoal_log_level = SHOAL_LOG_ERROR; /* the refusals above log warnings */
    test_codec();
    test_settings();
    test_uniqueid();
    test_server();
    test_server_join_death();
    test_server_launcher();
    test_host();
    if (failures) {
        fprintf(stderr, "store_unit: %d check(s) failed\n", failures);
        return 1;
    }
    printf("store_unit: all checks passed\n");
    return 0;
}
