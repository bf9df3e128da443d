/*
 * util/clock.h's shoal_sleep_next, the step of a wait that sleeps between
 * polls: it doubles from 1 us up to the cap; with `grow` the cap rises to
 * 1/64 of the time waited, never past 1 ms; without it (SHOAL_WAIT_SLEEP_US
 * set) the cap is the user's, whatever the wait's length; a cap of 0 still
 * sleeps 1 us.
 */
#include <stdint.h>

#include "unit_check.h"
#include "util/clock.h"

#define US 1000u
#define MS 1000000u

int main(void)
{
    /* The first step, then doubling to the 50 us cap, then staying there. */
    CHECK(shoal_sleep_next(0, 0, 50 * US, 1) == 1 * US);
    CHECK(shoal_sleep_next(1 * US, 0, 50 * US, 1) == 2 * US);
    CHECK(shoal_sleep_next(32 * US, 0, 50 * US, 1) == 50 * US);
    CHECK(shoal_sleep_next(50 * US, 2 * MS, 50 * US, 1) == 50 * US); /* 2 ms / 64 < 50 us */
    /* A longer wait raises the cap to 1/64 of its length ... */
    CHECK(shoal_sleep_next(50 * US, 32 * MS, 50 * US, 1) == 100 * US);
    CHECK(shoal_sleep_next(400 * US, 32 * MS, 50 * US, 1) == 500 * US);
    /* ... never past 1 ms, however long it lasts. */
    CHECK(shoal_sleep_next(800 * US, 10000ull * MS, 50 * US, 1) == 1 * MS);
    CHECK(shoal_sleep_next(1 * MS, 10000ull * MS, 50 * US, 1) == 1 * MS);
    /* Without growth the cap stays the user's. */
    CHECK(shoal_sleep_next(50 * US, 10000ull * MS, 50 * US, 0) == 50 * US);
    CHECK(shoal_sleep_next(0, 10000ull * MS, 7 * US, 0) == 1 * US);
    CHECK(shoal_sleep_next(4 * US, 10000ull * MS, 7 * US, 0) == 7 * US);
    /* A cap above 1 ms set by the user is kept. */
    CHECK(shoal_sleep_next(2 * MS, 10000ull * MS, 3 * MS, 0) == 3 * MS);
    CHECK(shoal_sleep_next(2 * MS, 10000ull * MS, 3 * MS, 1) == 3 * MS);
    /* A cap of 0 (SHOAL_WAIT_SLEEP_US=0) sleeps 1 us, never 0. */
    CHECK(shoal_sleep_next(0, 0, 0, 0) == 1 * US);
    CHECK(shoal_sleep_next(1 * US, 0, 0, 0) == 1 * US);
    if (failures == 0)
        printf("sleep step unit tests passed\n");
    return failures != 0;
}
