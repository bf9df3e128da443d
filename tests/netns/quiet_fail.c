/*
 * A transport failure during quiet ends the job with a message naming the
 * call, the peer and UCX's error; quiet never returns as if complete.
 *
 * Run on two hosts (rank r on host r % 2). PE 1 cuts every TCP connection
 * it has except the config store's (shutdown(2) on its UCX sockets), so
 * PE 1 stays alive and in the job as far as the store knows, while its
 * network endpoint is gone. PE 0 starts 1 GiB of puts to PE 1 at once
 * (1 MiB at a time into one buffer), then drops a marker file (the hosts
 * share a filesystem; the name comes from the job key) and calls
 * shmem_quiet; PE 1 cuts as soon as it sees the marker, so nearly all of the
 * 1 GiB (some 800 ms at this path's 1.3 GB/s) is still crossing and the
 * flush must fail. The cut follows PE 0's progress, not a clock, so a loaded
 * machine can neither let every put land first nor cut while PE 0 is still
 * issuing (that would be a put's error, not quiet's).
 *
 * UCX 1.13 aborts a target whose endpoint is gone when a put arriving on it
 * needs an acknowledgement (ucp_put_handler: "unexpected error"). A real
 * host whose network dies does not exit, so PE 1 parks the aborting thread
 * instead of dying; its process stays in the job.
 *
 * If quiet returns, the test says so and ends the job at once with
 * shmem_global_exit(3); ctest treats that message as a failure (the pass
 * condition is the fatal message from shmem_quiet).
 *
 * usage: quiet_fail (under tests/netns/netns_job.sh 2 1|2)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <shmem.h>

static int port_of(const struct sockaddr_storage *ss)
{
    return ss->ss_family == AF_INET ? ntohs(((const struct sockaddr_in *)ss)->sin_port) : -1;
}

/* Shuts down every IPv4 TCP connection of this process not to or from the
 * store's port; returns how many. */
static int cut_network(int store_port)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int cut = 0;
    while (d != NULL && (e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);
        struct sockaddr_storage local, peer;
        socklen_t llen = sizeof(local), plen = sizeof(peer);
        int type = 0;
        socklen_t tlen = sizeof(type);
        if (fd <= 2 || getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) != 0 ||
            type != SOCK_STREAM || getsockname(fd, (struct sockaddr *)&local, &llen) != 0 ||
            getpeername(fd, (struct sockaddr *)&peer, &plen) != 0 || local.ss_family != AF_INET)
            continue;
        if (port_of(&local) == store_port || port_of(&peer) == store_port)
            continue;
        if (shutdown(fd, SHUT_RDWR) == 0)
            cut++;
    }
    if (d != NULL)
        closedir(d);
    return cut;
}

static void park(int sig)
{
    (void)sig;
    for (;;)
        pause();
}

/* The marker's name, the same on every PE of the job. It is made before
 * shmem_init: init takes the job key out of the environment. */
static void marker_path(char *path, size_t size)
{
    const char *key = getenv("SHOAL_JOB_KEY");
    snprintf(path, size, "/tmp/shoal-quiet-fail-%.16s", key != NULL ? key : "nokey");
}

int main(void)
{
    const size_t len = 1 << 20;
    char marker[64];
    marker_path(marker, sizeof(marker));
    shmem_init();
    const int me = shmem_my_pe();
    char *buf = shmem_malloc(len);
    char *src = malloc(len);
    memset(src, 7, len);
    const char *store = getenv("SHOAL_STORE");
    const char *colon = store ? strrchr(store, ':') : NULL;
    int store_port = colon ? atoi(colon + 1) : -1;
    shmem_barrier_all();
    if (me == 1) {
        signal(SIGABRT, park);
        const time_t give_up = time(NULL) + 30;
        while (access(marker, F_OK) != 0 && time(NULL) < give_up)
            usleep(500);
        if (unlink(marker) != 0) {
            printf("quiet_fail: PE 0 did not finish issuing its puts within 30 s\n");
            fflush(stdout);
            shmem_global_exit(4);
        }
        int n = cut_network(store_port);
        printf("quiet_fail: PE 1 cut %d network connections\n", n);
        fflush(stdout);
        sleep(60); /* the job ends before this */
        return 0;
    }
    if (me == 0) {
        /* 1 GiB, not 256 MiB: with PEs that sleep in their waits the transfer
         * ran faster, and once (CI, 2 x 2, loaded) all of 256 MiB landed
         * before PE 1 saw the marker. */
        for (int i = 0; i < 1024; i++)
            shmem_putmem_nbi(buf, src, len, 1);
        FILE *f = fopen(marker, "w");
        if (f != NULL)
            fclose(f);
        shmem_quiet();
        printf("quiet_fail: shmem_quiet returned as if complete after PE 1's network went "
               "away\n");
        fflush(stdout);
        shmem_global_exit(3);
    }
    sleep(60);
    return 0;
}
