/*
 * Starting a PE from a unique ID passed through a file, the way a program
 * would pass it through MPI_Bcast or its own channel. The test driver gives
 * each PE STORE_TEST_RANK, STORE_TEST_NPES and STORE_TEST_UID_FILE (a path
 * in a fresh private directory): rank 0 calls shmemx_get_uniqueid and writes
 * the ID there (mode 0600, renamed into place so no one reads half of it);
 * the others wait for the file, at most 30 s. With
 * STORE_TEST_UID_MADE_ELSEWHERE set, rank 0 waits for it too (another
 * process made the ID and hosts the store).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <shmem.h>
#include <shmemx.h>

#include "uid_shim.h"

#undef shmem_init

static int env_int(const char *name)
{
    const char *v = getenv(name);
    if (v == NULL) {
        fprintf(stderr, "uid_shim: %s is not set\n", name);
        exit(2);
    }
    return atoi(v);
}

static void write_id(const char *path, const shmemx_uniqueid_t *id)
{
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write(fd, id, sizeof(*id)) != (ssize_t)sizeof(*id) || close(fd) != 0 ||
        rename(tmp, path) != 0) {
        fprintf(stderr, "uid_shim: cannot write %s: %s\n", path, strerror(errno));
        exit(2);
    }
}

static void read_id(const char *path, shmemx_uniqueid_t *id)
{
    for (int i = 0; i < 3000; i++) {
        int fd = open(path, O_RDONLY);
        if (fd >= 0) {
            ssize_t n = read(fd, id, sizeof(*id));
            close(fd);
            if (n == (ssize_t)sizeof(*id))
                return;
        }
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    fprintf(stderr, "uid_shim: no unique ID appeared in %s within 30 s\n", path);
    exit(2);
}

int store_test_uid_start(size_t heap_size)
{
    int rank = env_int("STORE_TEST_RANK"), npes = env_int("STORE_TEST_NPES");
    const char *path = getenv("STORE_TEST_UID_FILE");
    shmemx_uniqueid_t id;
    shmemx_init_attr_t attr = SHMEMX_INIT_ATTR_INITIALIZER;

    if (path == NULL) {
        fprintf(stderr, "uid_shim: STORE_TEST_UID_FILE is not set\n");
        exit(2);
    }
    if (rank == 0 && getenv("STORE_TEST_UID_MADE_ELSEWHERE") == NULL) {
        if (shmemx_get_uniqueid(&id) != 0) {
            fprintf(stderr, "uid_shim: shmemx_get_uniqueid failed\n");
            exit(2);
        }
        write_id(path, &id);
    } else {
        read_id(path, &id);
    }
    if (shmemx_set_attr_uniqueid_args(rank, npes, &id, &attr) != 0) {
        fprintf(stderr, "uid_shim: shmemx_set_attr_uniqueid_args failed\n");
        exit(2);
    }
    attr.heap_size = heap_size;
    return shmemx_init_attr(SHMEMX_INIT_WITH_UNIQUEID, &attr);
}

void store_test_uid_init(void)
{
    if (store_test_uid_start(0) != 0) {
        fprintf(stderr, "uid_shim: shmemx_init_attr failed\n");
        exit(2);
    }
}
