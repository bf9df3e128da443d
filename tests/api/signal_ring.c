/*
 * signal_ring: a producer/consumer ring buffer driven by put-with-signal.
 *
 * Every PE produces a stream of messages for its right neighbour and
 * consumes the stream from its left one, through S slots of M bytes on the
 * consumer with one signal per slot.  Messages have lengths from 1 byte to
 * M, and every byte depends on the producer, the message number and the
 * position, so data left over from an earlier message in the same slot, or
 * from another producer, cannot pass for the new one.
 *
 *  - the producer writes message k into slot k % S with put-with-signal;
 *    even slots use SHMEM_SIGNAL_SET with k + 1, odd slots SHMEM_SIGNAL_ADD
 *    of 1 (so the signal counts the slot's uses); the call rotates through
 *    putmem_signal, putmem_signal_nbi, ctx_putmem_signal on a created
 *    context, and uint8_put_signal_nbi;
 *  - the consumer polls the slot's signal with signal_fetch (or, once it
 *    has nothing left to send, blocks in signal_wait_until), and the moment
 *    it sees the expected value checks every byte of the message: a signal
 *    seen before its data fails here.  A signal past the expected value
 *    (a slot overrun) fails too;
 *  - the consumer returns a credit with signal_add on the producer's ack
 *    signal; the producer never has more than S messages outstanding;
 *  - around the ring of PEs twice: slots on the heap with signals in
 *    globals, then slots in globals with signals on the heap;
 *  - then in pairs, one PE only producing and the other only consuming, so
 *    the consumer is polling when a signal lands, and checks the message
 *    from its last byte back (a copy that is still running when its signal
 *    shows would be caught at the end it writes last).
 */
#include "check.h"

#include <sched.h>

#if !SHT_HAVE_TEAMS
SHT_SKIP_MAIN("signal_ring", "needs the OpenSHMEM 1.5 team API")
#else

#define S 8     /* slots */
#define M 16384 /* bytes per slot */
#define K 4000  /* messages per PE per run */

static unsigned char g_slots[S][M];
static uint64_t g_sig[S], g_ack;
static unsigned char src[S][M]; /* the producer's staging buffers, one per slot */
static int nbi_pending[S];

static size_t msg_len(int k)
{
    return 1 + ((size_t)k * 7919u + (size_t)k / 3) % M;
}
static unsigned char msg_byte(int pe, int k, size_t b)
{
    return (unsigned char)((b * 131u) ^ ((unsigned)k * 17u) ^ ((unsigned)pe * 101u) ^ (b >> 8));
}

/* Send K messages to `right` (unless it is -1) and receive K from `left`
 * (unless it is -1). */
static void run(unsigned char (*slots)[M], uint64_t *sig, uint64_t *ack, const char *where,
                int right, int left)
{
    int me = shmem_my_pe();
    long polls = 0;
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "ctx_create");
    for (int s = 0; s < S; s++)
        sig[s] = 0;
    *ack = 0;
    memset(nbi_pending, 0, sizeof nbi_pending);
    shmem_barrier_all();

    int sent = right < 0 ? K : 0, received = left < 0 ? K : 0;
    while (sent < K || received < K) {
        int progress = 0;
        /* Produce while there is credit. */
        if (sent < K && (uint64_t)sent - shmem_signal_fetch(ack) < S) {
            int k = sent, s = k % S;
            size_t len = msg_len(k);
            if (nbi_pending[s]) { /* the staging buffer may still be read */
                shmem_quiet();
                memset(nbi_pending, 0, sizeof nbi_pending);
            }
            for (size_t b = 0; b < len; b++)
                src[s][b] = msg_byte(me, k, b);
            int op = s % 2 ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET;
            uint64_t v = s % 2 ? 1 : (uint64_t)k + 1;
            switch (k % 4) {
            case 0:
                shmem_putmem_signal(slots[s], src[s], len, &sig[s], v, op, right);
                break;
            case 1:
                shmem_putmem_signal_nbi(slots[s], src[s], len, &sig[s], v, op, right);
                nbi_pending[s] = 1;
                break;
            case 2:
                shmem_ctx_putmem_signal(ctx, slots[s], src[s], len, &sig[s], v, op, right);
                break;
            default:
                shmem_uint8_put_signal_nbi(slots[s], src[s], len, &sig[s], v, op, right);
                nbi_pending[s] = 1;
                break;
            }
            sent++;
            progress = 1;
        }
        /* Consume the next message if its signal is there. */
        if (received < K) {
            int k = received, s = k % S;
            uint64_t expect = s % 2 ? (uint64_t)(k / S) + 1 : (uint64_t)k + 1;
            uint64_t seen;
            if (sent == K) /* nothing left to produce: block */
                seen = shmem_signal_wait_until(&sig[s], SHMEM_CMP_GE, expect);
            else
                seen = shmem_signal_fetch(&sig[s]);
            CHECK(seen <= expect,
                  "%s: slot %d signal is %llu while waiting for message %d "
                  "(expected %llu): the slot was overrun",
                  where, s, (unsigned long long)seen, k, (unsigned long long)expect);
            if (seen == expect) {
                size_t len = msg_len(k);
                /* Last byte first: a copy still running when the signal shows
                 * writes its end last. */
                for (size_t b = len; b-- > 0;) {
                    unsigned char got = SHT_READ(unsigned char, &slots[s][b]);
                    if (got != msg_byte(left, k, b))
                        SHT_FAIL(
                            "%s: message %d from PE %d, slot %d, byte %zu of %zu: expected 0x%02x, "
                            "seen 0x%02x after its signal (%llu) arrived",
                            where, k, left, s, b, len, msg_byte(left, k, b), got,
                            (unsigned long long)seen);
                }
                shmem_signal_add(ack, 1, left); /* a credit back to the producer */
                received++;
                progress = 1;
            }
        }
        /* With more PEs than cores let the others run now and then, but keep
         * polling hard enough to catch a signal the moment it lands. */
        if (!progress && ++polls % 256 == 0)
            sched_yield();
    }
    shmem_quiet();
    shmem_barrier_all();
    if (right >= 0)
        CHECK_VAL("credits returned", -1, shmem_signal_fetch(ack), (uint64_t)K);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    unsigned char(*h_slots)[M] = shmem_malloc(sizeof(unsigned char[S][M]));
    uint64_t *h_sig = shmem_malloc((S + 1) * sizeof(uint64_t));
    CHECK(h_slots && h_sig, "shmem_malloc failed");
    int me = shmem_my_pe(), npes = shmem_n_pes();
    /* Around the ring: every PE produces and consumes. */
    run(h_slots, g_sig, &g_ack, "ring: heap slots, global signals", sht_right(), sht_left());
    run(g_slots, h_sig, &h_sig[S], "ring: global slots, heap signals", sht_right(), sht_left());
    /* Pairs: even PEs only produce, odd PEs only consume and so sit polling
     * the slot when its signal lands (a last odd-numbered PE talks to itself). */
    int partner = me ^ 1;
    if (partner >= npes)
        run(h_slots, g_sig, &g_ack, "pairs: heap slots, global signals (self)", me, me);
    else if (me % 2 == 0)
        run(h_slots, g_sig, &g_ack, "pairs: heap slots, global signals (producer)", partner, -1);
    else
        run(h_slots, g_sig, &g_ack, "pairs: heap slots, global signals (consumer)", -1, partner);
    shmem_free(h_slots);
    shmem_free(h_sig);
    sht_pass("signal_ring");
    shmem_finalize();
    return 0;
}

#endif /* SHT_HAVE_TEAMS */
