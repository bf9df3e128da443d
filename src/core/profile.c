/*
 * The profile (SHOAL_PROFILE=1, SHOAL_PROFILE_CSV): every PE's counters,
 * summed over its threads, gathered on PE 0 over the bootstrap at finalize
 * and printed as a table per operation family and a traffic matrix.
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

/* ---- the profile ---- */

/* One PE's counters, as sent to PE 0 over the bootstrap. */
static size_t profile_words(void)
{
    return 3 * SHOAL_TRACE_NFAMILIES + 2 * (size_t)shoal_tr.npes;
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
        for (int q = 0; q < shoal_tr.npes; q++) {
            w[3 * SHOAL_TRACE_NFAMILIES + q] += b->out_bytes[q];
            w[3 * SHOAL_TRACE_NFAMILIES + shoal_tr.npes + q] += b->in_bytes[q];
        }
    }
}

static void profile_print(const uint64_t *all)
{
    const size_t words = profile_words();
    const int np = shoal_tr.npes;
    uint64_t *matrix = calloc((size_t)np * (size_t)np, sizeof(uint64_t));
    if (matrix == NULL)
        return;
    for (int pe = 0; pe < np; pe++) {
        const uint64_t *w = all + (size_t)pe * words;
        for (int q = 0; q < np; q++) {
            matrix[(size_t)pe * np + q] += w[3 * SHOAL_TRACE_NFAMILIES + q];
            matrix[(size_t)q * np + pe] += w[3 * SHOAL_TRACE_NFAMILIES + np + q];
        }
    }
    shoal_outfile_t csv_file, *csv = NULL;
    if (shoal_env.profile_csv[0] != '\0' &&
        shoal_outfile_open(&csv_file, "shmem_finalize", "SHOAL_PROFILE_CSV", shoal_env.profile_csv,
                           "w", NULL) == SHOAL_OK) {
        csv = &csv_file;
        shoal_outfile_printf(csv, "family,calls,bytes,time_ns,slowest_pe,slowest_pe_time_ns\n");
    }
    printf("Shoal profile: %d PEs, %.3f ms from shmem_init to shmem_finalize on PE 0\n", np,
           (double)(shoal_trace_now() - shoal_tr.t_init) / 1e6);
    printf("%-20s %12s %14s %12s  %s\n", "family", "calls", "bytes", "time (ms)",
           "slowest PE (ms)");
    for (int k = 0; k < SHOAL_TRACE_NFAMILIES; k++) {
        uint64_t calls = 0, bytes = 0, ns = 0, worst = 0;
        int worst_pe = 0;
        for (int pe = 0; pe < np; pe++) {
            const uint64_t *w = all + (size_t)pe * words;
            calls += w[3 * k];
            bytes += w[3 * k + 1];
            ns += w[3 * k + 2];
            if (w[3 * k + 2] > worst) {
                worst = w[3 * k + 2];
                worst_pe = pe;
            }
        }
        if (calls == 0)
            printf("%-20s %12d %14d %12s  %s\n", shoal_trace_family_name[k], 0, 0, "-", "-");
        else
            printf("%-20s %12" PRIu64 " %14" PRIu64 " %12.3f  PE %d (%.3f)\n", shoal_trace_family_name[k],
                   calls, bytes, (double)ns / 1e6, worst_pe, (double)worst / 1e6);
        if (csv != NULL)
            shoal_outfile_printf(csv, "%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d,%" PRIu64 "\n",
                                 shoal_trace_family_name[k], calls, bytes, ns, calls ? worst_pe : -1, worst);
    }
    printf("Traffic in bytes, from the row's PE to the column's PE (puts, signals, AMOs, "
           "gets; not the collectives' own):\n%8s",
           "");
    for (int q = 0; q < np; q++) {
        char col[16];
        snprintf(col, sizeof(col), "PE %d", q);
        printf(" %13s", col);
    }
    printf("\n");
    if (csv != NULL)
        shoal_outfile_printf(csv, "\nfrom_pe,to_pe,bytes\n");
    for (int pe = 0; pe < np; pe++) {
        printf("PE %-5d", pe);
        for (int q = 0; q < np; q++) {
            printf(" %13" PRIu64, matrix[(size_t)pe * np + q]);
            if (csv != NULL)
                shoal_outfile_printf(csv, "%d,%d,%" PRIu64 "\n", pe, q,
                                     matrix[(size_t)pe * np + q]);
        }
        printf("\n");
    }
    fflush(stdout);
    if (csv != NULL)
        shoal_outfile_close(csv);
    free(matrix);
}

void shoal_profile_gather(void)
{
    const size_t words = profile_words();
    uint64_t *mine = calloc(words, sizeof(uint64_t));
    uint64_t *all = shoal_tr.me == 0 ? calloc(words * (size_t)shoal_tr.npes, sizeof(uint64_t)) : NULL;
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
