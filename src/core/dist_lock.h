/*
 * Distributed locks over a symmetric long (see dist_lock.c).
 */
#ifndef SHOAL_CORE_DIST_LOCK_H
#define SHOAL_CORE_DIST_LOCK_H

void shoal_lock_set(const char *fn, long *lock);
int shoal_lock_test(const char *fn, long *lock);
/* Ends the job when this PE does not hold `lock`. */
void shoal_lock_clear(const char *fn, long *lock);
/* Forgets the locks held (shmem_finalize). */
void shoal_lock_finalize(void);

#endif
