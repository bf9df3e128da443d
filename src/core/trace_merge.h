/*
 * Reading the per-PE trace files back (trace.<pe>.jsonl, core/trace.c says
 * what they hold) and writing the merged trace.json. One implementation
 * for both callers: PE 0 at shmem_finalize, and shoal-trace (tools/) after
 * the fact, when the job never reached finalize (a hang ended by
 * shoalrun --timeout, a crash). Needs nothing of a running job: only util/.
 */
#ifndef SHOAL_CORE_TRACE_MERGE_H
#define SHOAL_CORE_TRACE_MERGE_H

#include <stddef.h>
#include <stdint.h>

/* One record read back: a call of PE `pe`. */
typedef struct {
    uint64_t t0, t1; /* CLOCK_REALTIME ns */
    uint64_t addr;   /* symmetric key: (row + 1) << 48 | offset; 0 for none */
    uint64_t bytes;
    int32_t peer;
    uint16_t family; /* shoal_trace_family_t */
    uint16_t tid;
    int pe;
    long released_by; /* a wait: the index of the signal record that released it, else -1 */
    int matched;      /* a signal: it released a wait */
    int team_npes;    /* a collective: its team's size, else 0 */
    char fn[96];
    char team[32]; /* a collective's team ("SHMEM_TEAM_WORLD", "team 4"), or "" */
    char sym[128]; /* a global's symbol+offset as the writing PE named it, or "" */
} shoal_trace_rec_t;

typedef struct {
    shoal_trace_rec_t *rec;
    size_t n;
    int npes;
    uint64_t *dropped; /* [npes] */
    int *complete;     /* [npes]: the file ends with finalize's last line */
    int *present;      /* [npes]: the file could be read */
    char exe[4096];    /* the program, from the files' first line ("" if unknown) */
    uint64_t globals_vaddr, globals_size;
    int64_t *clock_offset; /* [npes]: added to the PE's times to read PE 0's clock */
    uint64_t *clock_rtt;   /* [npes]: the round trip it was measured with (0: PE 0's host) */
    uint64_t base;         /* the earliest t0 (on PE 0's clock): time 0 of trace.json */
} shoal_trace_set_t;

/* Reads DIR's per-PE files into *set: `npes` files, or with npes 0 as many
 * as the files' first lines say (else the highest trace.<pe>.jsonl + 1).
 * Then joins each wait to the signal that released it (released_by).
 * A file that cannot be read is warned about (naming `call`) and its PE
 * left out. Returns 0, or -1 when no file could be read. */
int shoal_trace_read(shoal_trace_set_t *set, const char *dir, int npes, const char *call);
void shoal_trace_set_free(shoal_trace_set_t *set);

/* The name of a symmetric key as trace.json shows it: a global of the
 * program by its symbol ("sig", "table+0x10") when the executable's
 * symbol table has one, else "heap+0x40" / "globals+0x88". */
void shoal_trace_addr_name(const shoal_trace_set_t *set, uint64_t key, char *out, size_t cap);

/* The name of a record's address: the symbol the writing PE gave it (a
 * flush from a signal handler gives none), else shoal_trace_addr_name's. */
void shoal_trace_rec_addr_name(const shoal_trace_set_t *set, const shoal_trace_rec_t *rec,
                               char *out, size_t cap);

/* The profile's name of a family ("put", "barrier/collective"). */
const char *shoal_trace_family_str(unsigned family);

/* Writes the merged Chrome trace-event file `path` from *set (`lost`: the
 * caller's once-per-file flag for failures, see util/outfile.h). Returns
 * 0, or -1 when it could not be written. */
int shoal_trace_write_json(const shoal_trace_set_t *set, const char *path, const char *call,
                           int *lost);

/* Both: DIR/trace.json from DIR's per-PE files. */
int shoal_trace_merge_dir(const char *dir, int npes, const char *call, int *lost);

#endif
