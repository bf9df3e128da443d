/* Compiled (not run) with -std=c11 -pedantic -Werror: the public headers and
 * the generic interface must be clean for users who build that way. */
#include <shmem.h>
#include <shmemx.h>

static long x;
static int32_t bits;

int main(void)
{
    long v = 1;
    double d = 0.0;
    shmem_init();
    shmem_put(&x, &v, 1, 0);
    shmem_put(SHMEM_CTX_DEFAULT, &x, &v, 1, 0);
    v = shmem_g(&x, 0);
    shmem_atomic_add(&x, 1L, 0);
    d = shmem_atomic_fetch(&d, 0);
    shmem_atomic_xor(&bits, 1, 0);
    shmem_wait_until(&x, SHMEM_CMP_GE, 1L);
    shmem_finalize();
    return (int)v + (int)d;
}
