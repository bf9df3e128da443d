/*
 * The profile (SHOAL_PROFILE=1, or SHOAL_PROFILE_CSV=<file>): every PE's
 * counters, summed over its threads, gathered on PE 0 over the bootstrap at
 * finalize and printed so that imbalance shows:
 *   - per operation family the calls and bytes of all PEs, and the mean and
 *     the maximum over PEs of the time one PE spent in it (a sum over PEs
 *     would exceed the job's length);
 *   - the laggard: the PE that arrived last at the world team's barriers and
 *     collectives, found as the PE that spent the least time in them (the
 *     others waited there for it), and how much longer the others waited;
 *   - each PE's wall time split into compute (outside the library),
 *     communication (puts, gets, AMOs, signals, quiet/fence) and waiting
 *     (waits, barriers, collectives, collective allocation);
 *   - the PE-to-PE traffic matrix, printed up to PROFILE_PRINT_PES PEs; a
 *     bigger job's goes to the CSV only (bench/tools/profile_heatmap.py,
 *     installed as shoal-profile-heatmap, draws it).
 * The CSV holds three tables separated by blank lines: the families, the
 * PEs, and the matrix's nonzero cells.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bootstrap/bootstrap.h"
#include "core/state.h"
#include "core/trace_internal.h"
#include "util/env.h"
#include "util/log.h"
#include "util/outfile.h"

/* Jobs up to this many PEs get the per-PE rows and the matrix printed. */
#define PROFILE_PRINT_PES 16

/* One PE's counters, as sent to PE 0 over the bootstrap: per family calls,
 * bytes and ns; then the PE's wall time, its time and calls in the world
 * team's collectives; then bytes out to and in from each PE. */
enum { W_FAMILIES = 0, W_WALL = 3 * SHOAL_TRACE_NFAMILIES, W_WORLD_NS, W_WORLD_CALLS, W_MATRIX };

static size_t profile_words(void)
{
    return W_MATRIX + 2 * (size_t)shoal_tr.npes;
}

/* Sums every thread's counters into w (zeroed). The threads are done:
 * finalize runs after the program's last call. */
static void profile_pack(uint64_t *w)
{
    for (int i = 0; i < shoal_tr.nbufs; i++) {
        const trace_buf_t *b = shoal_tr.bufs[i];
        for (int k = 0; k < SHOAL_TRACE_NFAMILIES; k++) {
            w[3 * k] += b->calls[k];
            w[3 * k + 1] += b->bytes[k];
            w[3 * k + 2] += b->ns[k];
        }
        w[W_WORLD_NS] += b->world_coll_ns;
        w[W_WORLD_CALLS] += b->world_coll_calls;
        for (int q = 0; q < shoal_tr.npes; q++) {
            w[W_MATRIX + q] += b->out_bytes[q];
            w[W_MATRIX + shoal_tr.npes + q] += b->in_bytes[q];
        }
    }
    w[W_WALL] = shoal_trace_now() - shoal_tr.t_init;
}

/* One PE's wall time split three ways (ns). Threads of one PE can be in
 * the library at once, so the parts are capped at the wall time. */
typedef struct {
    uint64_t wall, compute, comm, wait;
} share_t;

static share_t pe_share(const uint64_t *w)
{
    share_t s = {.wall = w[W_WALL]};
    for (int k = 0; k < SHOAL_TRACE_PROFILED; k++) {
        const uint64_t ns = w[3 * k + 2];
        if (k == SHOAL_TRACE_WAIT || k == SHOAL_TRACE_COLL || k == SHOAL_TRACE_ALLOC)
            s.wait += ns;
        else
            s.comm += ns;
    }
    if (s.wait > s.wall)
        s.wait = s.wall;
    if (s.comm > s.wall - s.wait)
        s.comm = s.wall - s.wait;
    s.compute = s.wall - s.wait - s.comm;
    return s;
}

static double ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The laggard: the PE with the least time in the world team's barriers and
 * collectives, if every PE made some; *others_p is how much more time the
 * other PEs spent there on average. -1 when there is none to name. */
static int find_laggard(const uint64_t *all, size_t words, int np, uint64_t *others_p)
{
    int lag = -1;
    uint64_t least = UINT64_MAX, sum = 0;
    for (int pe = 0; pe < np; pe++) {
        const uint64_t *w = all + (size_t)pe * words;
        if (w[W_WORLD_CALLS] == 0)
            return -1;
        sum += w[W_WORLD_NS];
        if (w[W_WORLD_NS] < least) {
            least = w[W_WORLD_NS];
            lag = pe;
        }
    }
    if (np < 2)
        return -1;
    *others_p = (sum - least) / (uint64_t)(np - 1) - least;
    return lag;
}

static void print_families(const uint64_t *all, size_t words, int np, shoal_outfile_t *csv)
{
    printf("%-20s %10s %14s %12s %12s  %s\n", "family", "calls", "bytes", "mean ms/PE", "max ms/PE",
           "(on PE)");
    if (csv != NULL)
        shoal_outfile_printf(csv, "family,calls,bytes,mean_ns_per_pe,max_ns_per_pe,max_pe\n");
    for (int k = 0; k < SHOAL_TRACE_PROFILED; k++) {
        uint64_t calls = 0, bytes = 0, ns = 0, worst = 0;
        int worst_pe = -1;
        for (int pe = 0; pe < np; pe++) {
            const uint64_t *w = all + (size_t)pe * words;
            calls += w[3 * k];
            bytes += w[3 * k + 1];
            ns += w[3 * k + 2];
            if (w[3 * k] > 0 && (worst_pe < 0 || w[3 * k + 2] > worst)) {
                worst = w[3 * k + 2];
                worst_pe = pe;
            }
        }
        const uint64_t mean = ns / (uint64_t)np;
        if (calls == 0)
            printf("%-20s %10d %14d %12s %12s\n", shoal_trace_family_name[k], 0, 0, "-", "-");
        else
            printf("%-20s %10" PRIu64 " %14" PRIu64 " %12.3f %12.3f  PE %d\n",
                   shoal_trace_family_name[k], calls, bytes, ms(mean), ms(worst), worst_pe);
        if (csv != NULL)
            shoal_outfile_printf(csv, "%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d\n",
                                 shoal_trace_family_name[k], calls, bytes, mean, worst, worst_pe);
    }
}

static void print_shares(const uint64_t *all, size_t words, int np, int lag, shoal_outfile_t *csv)
{
    if (csv != NULL)
        shoal_outfile_printf(csv, "\npe,wall_ns,compute_ns,communication_ns,waiting_ns,"
                                  "world_collective_ns,world_collective_calls,laggard\n");
    if (np <= PROFILE_PRINT_PES)
        printf("Each PE's wall time: compute (outside Shoal), communication (put, get, AMO, "
               "signal, quiet/fence), waiting (waits, barriers, collectives, allocation):\n"
               "%-8s %10s %18s %18s %18s\n",
               "", "wall ms", "compute", "communication", "waiting");
    share_t most_wait = {0}, least_wait = {0};
    int most_pe = -1, least_pe = -1;
    for (int pe = 0; pe < np; pe++) {
        const uint64_t *w = all + (size_t)pe * words;
        const share_t s = pe_share(w);
        if (np <= PROFILE_PRINT_PES)
            printf("PE %-5d %10.3f %9.3f (%3.0f%%) %9.3f (%3.0f%%) %9.3f (%3.0f%%)%s\n", pe,
                   ms(s.wall), ms(s.compute), pct(s.compute, s.wall), ms(s.comm),
                   pct(s.comm, s.wall), ms(s.wait), pct(s.wait, s.wall),
                   pe == lag ? "  <- laggard" : "");
        if (most_pe < 0 || pct(s.wait, s.wall) > pct(most_wait.wait, most_wait.wall)) {
            most_wait = s;
            most_pe = pe;
        }
        if (least_pe < 0 || pct(s.wait, s.wall) < pct(least_wait.wait, least_wait.wall)) {
            least_wait = s;
            least_pe = pe;
        }
        if (csv != NULL)
            shoal_outfile_printf(
                csv,
                "%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d\n",
                pe, s.wall, s.compute, s.comm, s.wait, w[W_WORLD_NS], w[W_WORLD_CALLS], pe == lag);
    }
    if (np > PROFILE_PRINT_PES)
        printf("Each PE's wall time (%s): waiting is %.0f%% on PE %d (the most) and %.0f%% on "
               "PE %d (the least)\n",
               csv != NULL ? "every PE's row is in SHOAL_PROFILE_CSV"
                           : "set SHOAL_PROFILE_CSV=<file> for every PE's row",
               pct(most_wait.wait, most_wait.wall), most_pe, pct(least_wait.wait, least_wait.wall),
               least_pe);
}

/* A byte count in at most 7 characters: exact below 100,000, else with a
 * unit (the CSV keeps the exact count). */
static void fmt_bytes(char *s, size_t len, uint64_t v)
{
    static const char unit[] = "KMGTPE";
    if (v < 100000) {
        snprintf(s, len, "%" PRIu64, v);
        return;
    }
    double x = (double)v;
    int u = -1;
    while (x >= 999.95 && u < 5) {
        x /= 1000;
        u++;
    }
    snprintf(s, len, x < 99.95 ? "%.1f%c" : "%.0f%c", x, unit[u]);
}

static void print_matrix(const uint64_t *all, size_t words, int np, shoal_outfile_t *csv)
{
    uint64_t *matrix = calloc((size_t)np * (size_t)np, sizeof(uint64_t));
    if (matrix == NULL) {
        SHOAL_ERROR("shmem_finalize: no memory for the profile's %dx%d traffic matrix", np, np);
        return;
    }
    for (int pe = 0; pe < np; pe++) {
        const uint64_t *w = all + (size_t)pe * words;
        for (int q = 0; q < np; q++) {
            matrix[(size_t)pe * np + q] += w[W_MATRIX + q];
            matrix[(size_t)q * np + pe] += w[W_MATRIX + np + q];
        }
    }
    if (csv != NULL) {
        shoal_outfile_printf(csv, "\nfrom_pe,to_pe,bytes\n");
        for (size_t i = 0; i < (size_t)np * np; i++)
            if (matrix[i] != 0)
                shoal_outfile_printf(csv, "%zu,%zu,%" PRIu64 "\n", i / (size_t)np, i % (size_t)np,
                                     matrix[i]);
    }
    if (np > PROFILE_PRINT_PES) {
        printf("Traffic matrix: %d PEs are more than the %d printed; %s\n", np, PROFILE_PRINT_PES,
               csv != NULL ? "its nonzero cells are in SHOAL_PROFILE_CSV (shoal-profile-heatmap "
                             "draws it)"
                           : "set SHOAL_PROFILE_CSV=<file> to keep it (shoal-profile-heatmap "
                             "draws it)");
        free(matrix);
        return;
    }
    printf("Traffic in bytes (K, M, G: thousands, millions, billions), from the row's PE to "
           "the column's PE (puts, signals, AMOs, gets; not the collectives' own):\n%-7s",
           "");
    for (int q = 0; q < np; q++) {
        char col[16];
        snprintf(col, sizeof(col), "PE %d", q);
        printf(" %7s", col);
    }
    printf("\n");
    for (int pe = 0; pe < np; pe++) {
        printf("PE %-4d", pe);
        for (int q = 0; q < np; q++) {
            char cell[16];
            fmt_bytes(cell, sizeof(cell), matrix[(size_t)pe * np + q]);
            printf(" %7s", cell);
        }
        printf("\n");
    }
    free(matrix);
}

static void profile_print(const uint64_t *all)
{
    const size_t words = profile_words();
    const int np = shoal_tr.npes;
    shoal_outfile_t csv_file, *csv = NULL;
    if (shoal_env.profile_csv[0] != '\0' &&
        shoal_outfile_open(&csv_file, "shmem_finalize", "SHOAL_PROFILE_CSV", shoal_env.profile_csv,
                           "w", NULL) == SHOAL_OK)
        csv = &csv_file;
    printf("Shoal profile: %d PEs, %.3f ms from shmem_init to shmem_finalize on PE 0\n", np,
           ms(all[W_WALL]));
    print_families(all, words, np, csv);
    uint64_t others = 0;
    const int lag = find_laggard(all, words, np, &others);
    if (lag >= 0) {
        const uint64_t *w = all + (size_t)lag * words;
        printf("Laggard: PE %d arrived last at the barriers and collectives of SHMEM_TEAM_WORLD: "
               "it spent %.3f ms in its %" PRIu64 " of them, the other PEs %.3f ms more on "
               "average, waiting for it\n",
               lag, ms(w[W_WORLD_NS]), w[W_WORLD_CALLS], ms(others));
    } else {
        printf("Laggard: none named (%s)\n",
               np < 2 ? "one PE" : "some PE made no barrier or collective on SHMEM_TEAM_WORLD");
    }
    print_shares(all, words, np, lag, csv);
    print_matrix(all, words, np, csv);
    fflush(stdout);
    if (csv != NULL)
        shoal_outfile_close(csv);
}

void shoal_profile_gather(void)
{
    const size_t words = profile_words();
    uint64_t *mine = calloc(words, sizeof(uint64_t));
    uint64_t *all =
        shoal_tr.me == 0 ? calloc(words * (size_t)shoal_tr.npes, sizeof(uint64_t)) : NULL;
    char key[64];
    snprintf(key, sizeof(key), "trace.profile.%u", shoal.generation);
    if (mine == NULL || (shoal_tr.me == 0 && all == NULL)) {
        SHOAL_ERROR("shmem_finalize: no memory for the profile");
        goto out;
    }
    profile_pack(mine);
    shoal_status_t status = shoal_bootstrap_put(&shoal.bs, key, mine, words * sizeof(uint64_t));
    if (status == SHOAL_OK)
        status = shoal_bootstrap_fence(&shoal.bs);
    if (status != SHOAL_OK) {
        SHOAL_ERROR("shmem_finalize: cannot publish this PE's profile over the bootstrap: %s",
                    shoal_status_str(status));
        goto out;
    }
    if (shoal_tr.me == 0) {
        for (int pe = 0; pe < shoal_tr.npes && status == SHOAL_OK; pe++)
            status = shoal_bootstrap_get(&shoal.bs, pe, key, all + (size_t)pe * words,
                                         words * sizeof(uint64_t), NULL);
        if (status != SHOAL_OK)
            SHOAL_ERROR("shmem_finalize: cannot read the PEs' profiles over the bootstrap: %s",
                        shoal_status_str(status));
        else
            profile_print(all);
    }
out:
    free(mine);
    free(all);
}
