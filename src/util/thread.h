/*
 * Names for the library's own threads, so that `top -H`, `ps -L`, perf and
 * gdb tell them from the application's (Linux: up to 15 characters).
 */
#ifndef SHOAL_UTIL_THREAD_H
#define SHOAL_UTIL_THREAD_H

#include <pthread.h>

/* Names the calling thread. */
static inline void shoal_thread_name(const char *name)
{
#if defined(__linux__)
    (void)pthread_setname_np(pthread_self(), name);
#else
    (void)name;
#endif
}

#endif
