/*
 * The device API test's steps run on the CPU: <shmemx_device.h> compiled by
 * the host compiler, one "thread" per PE (a pthread, so that the host side
 * can take part in the event step while the step runs).
 */
#include <pthread.h>

#include "dev_api_steps.h"

static struct {
    shmemx_dev_t d;
    int step;
    step_args_t a;
} job;
/* STEP_MULTI runs a->rounds threads at once (several threads failing
 * together); every other step one. */
#define MAX_THREADS 8
static pthread_t threads[MAX_THREADS];
static int nrunning;

static void *run(void *unused)
{
    (void)unused;
    step_run(job.d, job.step, &job.a);
    return NULL;
}

int dev_launch(shmemx_dev_t d, int step, const step_args_t *a)
{
    job.d = d;
    job.step = step;
    job.a = *a;
    const int n = step == STEP_MULTI && a->rounds > 1 && a->rounds <= MAX_THREADS ? a->rounds : 1;
    for (nrunning = 0; nrunning < n; nrunning++)
        if (pthread_create(&threads[nrunning], NULL, run, NULL) != 0)
            return -1;
    return 0;
}

int dev_finish(void)
{
    for (int i = 0; i < nrunning; i++)
        pthread_join(threads[i], NULL);
    nrunning = 0;
    return 0;
}

/* No launches on the CPU: the barrier step runs as it is. */
int dev_collective(shmemx_dev_t d, const step_args_t *a)
{
    step_run(d, STEP_BARRIER, a);
    return 0;
}

int dev_on_gpu(void)
{
    return 0;
}
