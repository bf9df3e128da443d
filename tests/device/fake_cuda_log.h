/*
 * The stand-in driver's record of calls, read back by the tests that check
 * which memory the library registered, reserved or mapped: with
 * FAKE_CUDA_LOG=F each process writes F.<pid>, a line per call,
 * "<what> <hex address> <bytes>" or "<what> <bytes>".
 */
#ifndef SHOAL_TEST_FAKE_CUDA_LOG_H
#define SHOAL_TEST_FAKE_CUDA_LOG_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
    char what[16];
    uintptr_t addr; /* 0 on a line without an address */
    size_t size;
} fake_cuda_call_t;

/* Reads this process's record into calls[0, max): how many lines, -1 when
 * there is no record, -2 after naming a line it cannot read. With
 * addressed_only, lines without an address are left out. */
static inline int fake_cuda_read_log(fake_cuda_call_t *calls, int max, int addressed_only)
{
    char path[512];
    const char *log = getenv("FAKE_CUDA_LOG");
    snprintf(path, sizeof(path), "%s.%d", log != NULL ? log : "", (int)getpid());
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    char line[128];
    int n = 0;
    while (n < max && fgets(line, sizeof(line), f) != NULL) {
        fake_cuda_call_t *c = &calls[n];
        unsigned long a = 0;
        if (sscanf(line, "%15s %lx %zu", c->what, &a, &c->size) == 3) {
            c->addr = a;
        } else if (sscanf(line, "%15s %zu", c->what, &c->size) == 2) {
            if (addressed_only)
                continue;
            c->addr = 0;
        } else {
            fprintf(stderr, "fake_cuda_read_log: bad line in %s: %s", path, line);
            fclose(f);
            return -2;
        }
        n++;
    }
    fclose(f);
    return n;
}

#endif
