/*
 * Files the user asked Shoal to write (SHOAL_TRACE's files, SHOAL_PROFILE_CSV,
 * SHOAL_LOG_FILE). Every write, flush and close is checked: a disk that fills
 * up or a file system that fails must not leave an empty or cut file behind
 * without a word. The first failure of a file is logged once, naming the
 * call, the setting, the file and errno; the process counts the files it
 * lost, so that its exit status can say so (SHOAL_OUTPUT_LOST_STATUS, which
 * core/init.c's exit handler applies).
 */
#ifndef SHOAL_UTIL_OUTFILE_H
#define SHOAL_UTIL_OUTFILE_H

#include <stdio.h>

#include "util/status.h"

typedef struct {
    FILE *f;
    const char *call; /* the routine that writes, for messages: "shmem_finalize" */
    const char *what; /* the setting that asked for the file: "SHOAL_TRACE" */
    const char *path; /* owned by the caller, outlives the file */
    int err;          /* errno of the first failure; 0 while all went well */
    int *reported;    /* the caller's once-per-file flag; NULL: log every failure */
} shoal_outfile_t;

/* Opens `path` with fopen's `mode`. On failure logs the cause once (when
 * *reported is 0) and counts the file as lost. */
shoal_status_t shoal_outfile_open(shoal_outfile_t *o, const char *call, const char *what,
                                  const char *path, const char *mode, int *reported);
/* fprintf that remembers the first failure; does nothing after one. */
void shoal_outfile_printf(shoal_outfile_t *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Flushes and closes the file; a failure of any write, the flush or the
 * close is logged (once per *reported) and counted. SHOAL_ERR_IO then. */
shoal_status_t shoal_outfile_close(shoal_outfile_t *o);

/* Records a lost file that was written some other way (the log file's own
 * write(2)s): logs the message and counts the file, unless `quiet` (the
 * file was reported before). */
void shoal_outfile_lost(const char *path, int quiet, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* How many files were lost in this process, and the first one's path
 * ("" if none). */
unsigned shoal_outfile_lost_count(const char **first_path_p);

#endif
