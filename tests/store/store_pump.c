/*
 * Unit test of the config store's connection state machine (store/pump.c),
 * a PE's pump and a server's over a socketpair, stepped by hand: the
 * greeting with its verdict, frames in JOINING and JOINED checked against
 * the PE's policy, a refused greeting (the PE learns the verdict, the
 * server lingers until the PE closes), garbage instead of a greeting, and
 * the server's admission time running out. Plain links (TLS is covered by
 * tests/store/run_store_tests.sh).
 */
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../unit/unit_check.h"
#include "bootstrap/store/pump.h"
#include "bootstrap/store/sockets.h"
#include "util/log.h"

typedef struct {
    shoal_store_pump_t pe, srv;
    shoal_store_buf_t pe_in, pe_out, srv_in, srv_out;
    uint8_t verdict; /* what the server's judge answers */
    int judged;
} pair_t;

static uint8_t judge(void *arg, shoal_store_pump_t *p, const uint8_t g[SHOAL_STORE_HELLO_BYTES])
{
    pair_t *t = arg;
    uint8_t version, security, key_id[SHOAL_STORE_KEY_ID_BYTES];
    (void)p;
    t->judged++;
    if (shoal_store_greeting_decode(g, &version, &security, key_id) != SHOAL_OK)
        return SHOAL_STORE_GREET_GARBAGE;
    return security == SHOAL_STORE_SEC_PLAIN ? t->verdict : SHOAL_STORE_GREET_SECURITY;
}

static void pair_open(pair_t *t, uint8_t verdict, uint64_t now)
{
    int sv[2];
    memset(t, 0, sizeof(*t));
    t->verdict = verdict;
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0);
    t->pe.security = SHOAL_STORE_SEC_PLAIN;
    t->srv.security = SHOAL_STORE_SEC_PLAIN;
    t->srv.judge = judge;
    t->srv.judge_arg = t;
    CHECK(shoal_store_pump_open(&t->pe, &shoal_store_policy_pe, sv[0], &t->pe_in, &t->pe_out,
                                now) == SHOAL_OK);
    CHECK(shoal_store_pump_open(&t->srv, &shoal_store_policy_server, sv[1], &t->srv_in, &t->srv_out,
                                now) == SHOAL_OK);
    CHECK(t->pe.state == SHOAL_STORE_PUMP_GREET && t->srv.state == SHOAL_STORE_PUMP_GREET);
}

static void pair_close(pair_t *t)
{
    shoal_store_pump_close(&t->pe);
    shoal_store_pump_close(&t->srv);
    shoal_store_buf_free(&t->pe_in);
    shoal_store_buf_free(&t->pe_out);
    shoal_store_buf_free(&t->srv_in);
    shoal_store_buf_free(&t->srv_out);
}

/* Steps both sides a few rounds (the socketpair delivers at once); the
 * first step result of each that was not 0, in *pe_rc and *srv_rc. */
static void run(pair_t *t, uint64_t now, int *pe_rc, int *srv_rc)
{
    *pe_rc = *srv_rc = 0;
    for (int i = 0; i < 6; i++) {
        int a = t->pe.state == SHOAL_STORE_PUMP_CLOSED ? 0 : shoal_store_pump_step(&t->pe, now);
        int b = t->srv.state == SHOAL_STORE_PUMP_CLOSED ? 0 : shoal_store_pump_step(&t->srv, now);
        if (*pe_rc == 0)
            *pe_rc = a;
        if (*srv_rc == 0)
            *srv_rc = b;
    }
}

static void send_msg(shoal_store_buf_t *out, shoal_store_msg_type_t type)
{
    shoal_store_msg_t m = {.type = type};
    if (type == SHOAL_STORE_MSG_HELLO) {
        m.u.hello.npes = 2;
        m.u.hello.host = shoal_store_span("h", 1);
    } else if (type == SHOAL_STORE_MSG_WELCOME) {
        m.u.welcome.local_npes = 1;
        m.u.welcome.job_id = shoal_store_span("j", 1);
    }
    CHECK(shoal_store_encode(out, &m) == SHOAL_OK);
}

static void test_join(void)
{
    pair_t t;
    shoal_store_msg_t m;
    size_t len;
    int a, b;

    pair_open(&t, SHOAL_STORE_GREET_OK, 1000);
    send_msg(&t.pe_out, SHOAL_STORE_MSG_HELLO); /* goes out once the greeting is through */
    run(&t, 1000, &a, &b);
    CHECK(t.judged == 1 && t.pe.verdict == SHOAL_STORE_GREET_OK);
    CHECK(t.pe.state == SHOAL_STORE_PUMP_JOINING && t.srv.state == SHOAL_STORE_PUMP_JOINING);
    CHECK(t.pe.deadline_ms == 0 && t.srv.deadline_ms == 1000 + 10000); /* the server's admission */
    CHECK(b == 1 && shoal_store_pump_frame(&t.srv, &m, &len) == 1 &&
          m.type == SHOAL_STORE_MSG_HELLO && m.u.hello.npes == 2);
    shoal_store_buf_consume(&t.srv_in, len);
    shoal_store_pump_joined(&t.srv);
    CHECK(t.srv.deadline_ms == 0);

    /* A PE accepts WELCOME while joining, not a reply to a request. */
    send_msg(&t.srv_out, SHOAL_STORE_MSG_VALUE);
    run(&t, 1000, &a, &b);
    CHECK(a == 1 && shoal_store_pump_frame(&t.pe, &m, &len) == -1 &&
          strstr(t.pe.why, "unexpected VALUE") != NULL);
    shoal_store_buf_consume(&t.pe_in, len);
    send_msg(&t.srv_out, SHOAL_STORE_MSG_WELCOME);
    run(&t, 1000, &a, &b);
    CHECK(shoal_store_pump_frame(&t.pe, &m, &len) == 1 && m.type == SHOAL_STORE_MSG_WELCOME);
    shoal_store_buf_consume(&t.pe_in, len);
    shoal_store_pump_joined(&t.pe);
    /* Joined, the other way round. */
    send_msg(&t.srv_out, SHOAL_STORE_MSG_BARRIER_DONE);
    send_msg(&t.srv_out, SHOAL_STORE_MSG_WELCOME);
    run(&t, 1000, &a, &b);
    CHECK(shoal_store_pump_frame(&t.pe, &m, &len) == 1 && m.type == SHOAL_STORE_MSG_BARRIER_DONE);
    shoal_store_buf_consume(&t.pe_in, len);
    CHECK(shoal_store_pump_frame(&t.pe, &m, &len) == -1 &&
          strstr(t.pe.why, "unexpected WELCOME") != NULL);

    /* The server's side closes: the PE sees the end of the connection. */
    shoal_store_pump_close(&t.srv);
    CHECK(shoal_store_pump_step(&t.pe, 1000) == -1 && t.pe.end == SHOAL_STORE_IO_EOF &&
          t.pe.ended_in == SHOAL_STORE_PUMP_JOINED && t.pe.state == SHOAL_STORE_PUMP_CLOSED);
    CHECK(shoal_store_pump_events(&t.pe) == 0);
    pair_close(&t);
}

static void test_refused(void)
{
    pair_t t;
    int a, b;

    pair_open(&t, SHOAL_STORE_GREET_WRONG_SECRET, 1000);
    send_msg(&t.pe_out, SHOAL_STORE_MSG_HELLO);
    run(&t, 1000, &a, &b);
    CHECK(a == -1 && t.pe.state == SHOAL_STORE_PUMP_CLOSED && t.pe.end == SHOAL_STORE_END_REFUSED &&
          t.pe.ended_in == SHOAL_STORE_PUMP_GREET &&
          t.pe.verdict == SHOAL_STORE_GREET_WRONG_SECRET &&
          t.pe.peer_version == SHOAL_STORE_PROTO_VERSION);
    CHECK(b == -1 && t.srv.state == SHOAL_STORE_PUMP_LINGER &&
          t.srv.end == SHOAL_STORE_END_REFUSED && t.srv.deadline_ms == 1000 + 2000);
    CHECK(shoal_store_buf_unread(&t.srv_in) == 0); /* nothing of the refused PE's reached it */
    /* The PE closes: the server stops lingering. */
    shoal_store_pump_close(&t.pe);
    CHECK(shoal_store_pump_step(&t.srv, 1500) == 0 && t.srv.state == SHOAL_STORE_PUMP_CLOSED);
    pair_close(&t);

    /* A server lingers at most linger_ms. */
    pair_open(&t, SHOAL_STORE_GREET_CLOSED, 1000);
    run(&t, 1000, &a, &b);
    CHECK(t.pe.verdict == SHOAL_STORE_GREET_CLOSED && t.srv.state == SHOAL_STORE_PUMP_LINGER);
    CHECK(shoal_store_pump_step(&t.srv, 2999) == 0 && t.srv.state == SHOAL_STORE_PUMP_LINGER);
    CHECK(shoal_store_pump_step(&t.srv, 3000) == 0 && t.srv.state == SHOAL_STORE_PUMP_CLOSED);
    pair_close(&t);
}

static void test_garbage_and_time(void)
{
    pair_t t;
    int b;
    char junk[SHOAL_STORE_HELLO_BYTES];

    /* Not a greeting: no answer, the server lingers. */
    pair_open(&t, SHOAL_STORE_GREET_OK, 1000);
    memset(junk, 'x', sizeof(junk));
    CHECK(write(t.pe.link->fd, junk, sizeof(junk)) == (ssize_t)sizeof(junk));
    b = shoal_store_pump_step(&t.srv, 1000);
    CHECK(b == -1 && t.judged == 1 && t.srv.end == SHOAL_STORE_END_PROTOCOL &&
          t.srv.state == SHOAL_STORE_PUMP_LINGER);
    pair_close(&t);

    /* A silent connection: the server's admission time runs out. */
    pair_open(&t, SHOAL_STORE_GREET_OK, 1000);
    CHECK(shoal_store_pump_step(&t.srv, 10999) == 0 && t.srv.state == SHOAL_STORE_PUMP_GREET);
    CHECK(shoal_store_pump_step(&t.srv, 11000) == -1 && t.srv.end == SHOAL_STORE_END_TIMEOUT &&
          t.srv.ended_in == SHOAL_STORE_PUMP_GREET && t.srv.state == SHOAL_STORE_PUMP_CLOSED);
    pair_close(&t);
}

int main(void)
{
    shoal_log_level = SHOAL_LOG_ERROR;
    test_join();
    test_refused();
    test_garbage_and_time();
    if (failures) {
        fprintf(stderr, "store_pump: %d check(s) failed\n", failures);
        return 1;
    }
    printf("store_pump: all checks passed\n");
    return 0;
}
