/*
 * Unit tests of the settings parser (util/env.c): defaults, suffixes and
 * rejection of malformed values.
 */
#include <stdio.h>
#include <stdlib.h>

#include "util/env.h"

#include "unit_check.h"

int main(void)
{
    shoal_env_t env;
    unsetenv("SHMEM_SYMMETRIC_SIZE");
    unsetenv("SHMEM_DEBUG");
    CHECK(shoal_env_load(&env) == SHOAL_OK);
    CHECK(env.symmetric_size == (size_t)1 << 30);
    CHECK(env.debug == 0);

    setenv("SHMEM_SYMMETRIC_SIZE", "64m", 1);
    setenv("SHMEM_DEBUG", "yes", 1);
    CHECK(shoal_env_load(&env) == SHOAL_OK);
    CHECK(env.symmetric_size == (size_t)64 << 20);
    CHECK(env.debug == 1);

    setenv("SHMEM_SYMMETRIC_SIZE", "2G", 1);
    CHECK(shoal_env_load(&env) == SHOAL_OK && env.symmetric_size == (size_t)2 << 30);
    setenv("SHMEM_SYMMETRIC_SIZE", "4096", 1);
    CHECK(shoal_env_load(&env) == SHOAL_OK && env.symmetric_size == 4096);

    setenv("SHMEM_SYMMETRIC_SIZE", "12q", 1);
    CHECK(shoal_env_load(&env) == SHOAL_ERR_INVALID);
    CHECK(env.symmetric_size == (size_t)1 << 30); /* falls back to the default */
    setenv("SHMEM_SYMMETRIC_SIZE", "", 1);
    CHECK(shoal_env_load(&env) == SHOAL_ERR_INVALID);
    setenv("SHMEM_SYMMETRIC_SIZE", "1m", 1);
    setenv("SHMEM_DEBUG", "maybe", 1);
    CHECK(shoal_env_load(&env) == SHOAL_ERR_INVALID);
    setenv("SHMEM_DEBUG", "0", 1);
    setenv("SHOAL_WAIT_SPIN", "-5", 1);
    CHECK(shoal_env_load(&env) == SHOAL_ERR_INVALID);

    if (failures) {
        fprintf(stderr, "%d env check(s) failed\n", failures);
        return 1;
    }
    printf("env unit tests passed\n");
    return 0;
}
