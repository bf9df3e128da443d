/*
 * transport/shm/fdpass.c between real processes: two "PEs" (this process
 * and a child) pass memfds both ways and read each other's bytes through
 * them; a stranger that binds the child's name first and sends a datagram
 * claiming to be it is dropped because its pid is not the one expected,
 * and its own exchange times out naming the PE it never heard from.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "transport/shm/fdpass.h"
#include "unit_check.h"

static int memfd_with(int value)
{
    int fd = memfd_create("fdpass-test", MFD_CLOEXEC);
    if (fd < 0 || write(fd, &value, sizeof(value)) != sizeof(value))
        return -1;
    return fd;
}

static int value_in(int fd)
{
    int v = -1;
    if (pread(fd, &v, sizeof(v), 0) != sizeof(v))
        return -2;
    return v;
}

/* One side of an exchange with `peer` (rank), which must have pid `pid`;
 * writes a byte to `ready` once its socket is bound (every PE binds before
 * any sends, as the device heap's agreement step makes sure). */
static int exchange(const char *job, int rank, int peer, pid_t pid, unsigned timeout_ms, int ready,
                    int *got_p, char *msg, size_t msglen)
{
    shoal_fdpass_t fp;
    if (shoal_fdpass_open(&fp, job, 1, "t", rank, msg, msglen) != SHOAL_OK)
        return -1;
    if (ready >= 0 && write(ready, "r", 1) != 1)
        return -1;
    int mine = memfd_with(1000 + rank), theirs = -1;
    shoal_status_t s =
        shoal_fdpass_exchange(&fp, 0, mine, &peer, &pid, 1, &theirs, timeout_ms, msg, msglen);
    *got_p = s == SHOAL_OK ? value_in(theirs) : -1;
    if (theirs >= 0)
        close(theirs);
    close(mine);
    shoal_fdpass_close(&fp);
    return s == SHOAL_OK ? 0 : (int)s;
}

int main(void)
{
    char job[32], msg[300];
    snprintf(job, sizeof(job), "unit%d", (int)getpid());
    shoal_fdpass_t me;
    CHECK(shoal_fdpass_open(&me, job, 1, "t", 0, msg, sizeof(msg)) == SHOAL_OK);
    int sync[2];
    CHECK(pipe(sync) == 0);

    /* The stranger: takes rank 1's name, sends to rank 0, never hears back. */
    pid_t stranger = fork();
    if (stranger == 0) {
        int got;
        int r = exchange(job, 1, 0, getppid(), 300, -1, &got, msg, sizeof(msg));
        int ok = r == SHOAL_ERR_TIMEOUT && strstr(msg, "not heard from local PE 0") != NULL;
        if (!ok)
            fprintf(stderr, "stranger: status %d, message '%s'\n", r, msg);
        _exit(ok ? 0 : 1);
    }
    int status;
    CHECK(waitpid(stranger, &status, 0) == stranger && WIFEXITED(status) &&
          WEXITSTATUS(status) == 0);

    /* The real rank 1. */
    pid_t child = fork();
    if (child == 0) {
        int got;
        int r = exchange(job, 1, 0, getppid(), 10000, sync[1], &got, msg, sizeof(msg));
        if (r != 0 || got != 1000)
            fprintf(stderr, "child: status %d, got %d, message '%s'\n", r, got, msg);
        _exit(r == 0 && got == 1000 ? 0 : 1);
    }
    /* Rank 0's exchange: the stranger's datagram is queued first. */
    char byte;
    CHECK(read(sync[0], &byte, 1) == 1);
    int mine = memfd_with(1000), theirs = -1;
    pid_t pid = child;
    int peer = 1;
    shoal_status_t s =
        shoal_fdpass_exchange(&me, 0, mine, &peer, &pid, 1, &theirs, 10000, msg, sizeof(msg));
    CHECK(s == SHOAL_OK);
    if (s != SHOAL_OK)
        fprintf(stderr, "rank 0: %s\n", msg);
    CHECK(theirs >= 0 && value_in(theirs) == 1001);
    /* The received memfd is the child's: what it maps, this process sees. */
    if (theirs >= 0) {
        int *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, theirs, 0);
        CHECK(p != MAP_FAILED && p[0] == 1001);
        if (p != MAP_FAILED)
            munmap(p, 4096);
        close(theirs);
    }
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(mine);
    shoal_fdpass_close(&me);
    if (failures == 0)
        printf("PASS test_fdpass\n");
    return failures != 0;
}
