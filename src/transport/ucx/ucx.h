/*
 * The UCX (UCP) network transport: RMA and atomics to PEs whose memory this
 * PE does not map, over whatever UCX picks (or UCX_TLS allows). It is
 * started by transport/net_setup.c, which then registers the route table's rows
 * with it; the core reaches it only through `shoal_net`.
 */
#ifndef SHOAL_TRANSPORT_UCX_H
#define SHOAL_TRANSPORT_UCX_H

#include <stdint.h>

#include "bootstrap/bootstrap.h"
#include "transport/transport.h"

/* Collective over all PEs of `bs`. Publishes the worker address through the
 * bootstrap and connects to every PE whose `mapped[pe]` is 0. Starts the
 * progress thread, which serves peers' operations on this PE's memory while
 * the program computes or waits. `generation` keeps keys of repeated
 * shmem_init calls apart. Memory becomes reachable by shoal_transport_mem_register;
 * the transport is ended with shoal_transport_finalize, which is collective too.
 *
 * The transport is a plugin (libshoal_ucx.so, next to libshoal) loaded only
 * when needed: merely loading UCX interposes memory calls (libucm's madvise,
 * mmap), which breaks ThreadSanitizer and costs every single-host job. */
shoal_status_t shoal_ucx_init(shoal_bootstrap_t *bs, unsigned generation, const uint8_t *mapped,
                              shoal_transport_t **tr_p);

/* The library's settings the plugin needs: its copy of the logger's choices,
 * the network timeout and how waits yield and sleep (the plugin reads no
 * settings of its own: the environment is parsed once, and the plugin's
 * copy of the settings table stays empty). */
typedef struct {
    int level;              /* shoal_log_level */
    const char *subsys;     /* SHOAL_DEBUG_SUBSYS as the library read it */
    const char *file;       /* SHOAL_LOG_FILE as the library read it */
    unsigned net_timeout;   /* SHOAL_NET_TIMEOUT, seconds; 0: UCX's and the system's defaults */
    unsigned wait_yield_us; /* SHOAL_WAIT_YIELD_US */
    unsigned wait_sleep_us; /* SHOAL_WAIT_SLEEP_US */
    int wait_sleep_grow;    /* SHOAL_WAIT_SLEEP_US unset: long waits sleep longer */
} shoal_ucx_plugin_settings_t;

/* The plugin's one exported entry point. */
#define SHOAL_UCX_PLUGIN_FILE "libshoal_ucx.so"
#define SHOAL_UCX_PLUGIN_ENTRY "shoal_ucx_plugin_init_v7"
typedef shoal_status_t (*shoal_ucx_plugin_init_fn)(const shoal_ucx_plugin_settings_t *set,
                                                   shoal_bootstrap_t *bs, unsigned generation,
                                                   const uint8_t *mapped, shoal_transport_t **tr_p);

#endif
