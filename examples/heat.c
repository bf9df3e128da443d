/*
 * heat: the main demo. A rod of N cells is split across the PEs; each step
 * every PE puts its edge cells into its neighbours' halo cells, a barrier
 * separates the steps, and at the end every PE puts its part into PE 0,
 * which checks the result against the same computation done serially.
 */
#include <math.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define STEPS 2000

static double result[N]; /* gathered on PE 0 */

static void step_serial(double *u, double *tmp, int n)
{
    for (int i = 0; i < n; i++) {
        double left = i > 0 ? u[i - 1] : 0.0, right = i < n - 1 ? u[i + 1] : 0.0;
        tmp[i] = u[i] + 0.25 * (left - 2 * u[i] + right);
    }
    for (int i = 0; i < n; i++)
        u[i] = tmp[i];
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int chunk = (N + npes - 1) / npes;
    int lo = me * chunk, hi = lo + chunk > N ? N : lo + chunk;
    int mine = hi > lo ? hi - lo : 0;

    /* Cells lo..hi-1 live at u[1..mine]; u[0] and u[mine+1] are halos. */
    double *u = shmem_calloc((size_t)chunk + 2, sizeof(double));
    double *tmp = malloc(sizeof(double) * ((size_t)chunk + 2));
    for (int i = 0; i < mine; i++)
        u[i + 1] = (lo + i) % 97 == 0 ? 100.0 : 0.0;
    shmem_barrier_all();

    for (int s = 0; s < STEPS; s++) {
        if (mine > 0 && me > 0)
            shmem_double_p(&u[chunk + 1], u[1], me - 1); /* my first cell: left's right halo */
        if (mine > 0 && hi < N)
            shmem_double_p(&u[0], u[mine], me + 1); /* my last cell: right's left halo */
        shmem_barrier_all();
        for (int i = 1; i <= mine; i++) {
            double left = lo + i - 1 > 0 ? u[i - 1] : 0.0;
            double right = lo + i - 1 < N - 1 ? (i == mine ? u[chunk + 1] : u[i + 1]) : 0.0;
            if (i == mine && hi == N)
                right = 0.0;
            tmp[i] = u[i] + 0.25 * (left - 2 * u[i] + right);
        }
        shmem_barrier_all(); /* neighbours have read my edges before I change them */
        for (int i = 1; i <= mine; i++)
            u[i] = tmp[i];
    }
    if (mine > 0)
        shmem_double_put(&result[lo], &u[1], (size_t)mine, 0);
    shmem_barrier_all();

    int ok = 1;
    if (me == 0) {
        double *ref = malloc(sizeof(double) * N), *t = malloc(sizeof(double) * N);
        for (int i = 0; i < N; i++)
            ref[i] = i % 97 == 0 ? 100.0 : 0.0;
        for (int s = 0; s < STEPS; s++)
            step_serial(ref, t, N);
        double err = 0, heat = 0;
        for (int i = 0; i < N; i++) {
            err = fmax(err, fabs(ref[i] - result[i]));
            heat += result[i];
        }
        ok = err < 1e-9;
        printf("heat: %d cells on %d PEs, %d steps, total heat %.6f, max error vs serial %.3g: "
               "%s\n",
               N, npes, STEPS, heat, err, ok ? "OK" : "MISMATCH");
        free(ref);
        free(t);
    }
    shmem_free(u);
    free(tmp);
    shmem_finalize();
    return ok ? 0 : 1;
}
