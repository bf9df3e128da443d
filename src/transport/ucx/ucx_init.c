/*
 * The UCX transport's context and worker, the plugin's entry point (open,
 * exchange addresses, start the progress thread, connect) and its
 * tear-down.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "transport/ucx/ucx_internal.h"

static void ucx_release(ucx_t *u)
{
    ucx_progress_stop(u);
    for (size_t i = 0; i < u->ngets; i++) /* only after a failure: finalize's quiet drains them */
        ucp_request_free(u->gets[i].req);
    free(u->gets);
    free(u->ps_ack_queue);
    if (u->peers != NULL)
        ucx_close_endpoints(u);
    free(u->peers);
    for (int r = 0; r < SHOAL_ROUTE_ROWS; r++)
        if (u->memh[r] != NULL)
            ucp_mem_unmap(u->context, u->memh[r]);
    if (u->worker != NULL)
        ucp_worker_destroy(u->worker);
    if (u->context != NULL)
        ucp_cleanup(u->context);
    if (u->wake_fd >= 0)
        close(u->wake_fd);
    free(u);
}

static void ucx_finalize(shoal_transport_t *tr)
{
    ucx_t *u = tr->priv;
    ucx_quiet(tr);
    ucx_close_endpoints(u);
    /* Peers may still be flushing their endpoints to us: keep serving them
     * (the progress thread runs) until everyone is done. */
    ucx_hand_over(u);
    shoal_bootstrap_barrier(u->bs);
    ucx_release(u);
}

static const shoal_transport_ops_t ucx_ops = {
    .version = SHOAL_TRANSPORT_VERSION,
    .name = "ucx",
    .put = ucx_put,
    .get = ucx_get,
    .put_signal = ucx_put_signal,
    .amo = ucx_amo,
    .quiet = ucx_quiet,
    .pe_quiet = ucx_pe_quiet,
    .fence = ucx_fence,
    .mem_register = ucx_mem_register,
    .mem_deregister = ucx_mem_deregister,
    .strerror = ucx_strerror,
    .progress = ucx_progress,
    .sleep = ucx_sleep,
    .idle = ucx_idle,
    .finalize = ucx_finalize,
};

/* UCX's TCP keepalive from SHOAL_NET_TIMEOUT (`s` seconds), unless the user
 * set UCX's own variables: a quiet connection is probed every s/10 seconds
 * after s/10 idle and given up after 9 unanswered probes, so a cut link or
 * a host gone fails the endpoints to it (Endpoint timeout) in about s
 * seconds instead of UCX's own 10 + 3 x 2 s after its first keepalive. UCX
 * sets no TCP_USER_TIMEOUT, so a connection with data in flight when the
 * link went retransmits for minutes; the config store's connection, which
 * has one, notices that case. */
static void ucx_config_net_timeout(ucp_config_t *config, unsigned s)
{
    char step[32], cnt[32];
    if (s == 0)
        return;
    unsigned st = s >= 10 ? s / 10 : 1;
    snprintf(step, sizeof(step), "%us", st);
    snprintf(cnt, sizeof(cnt), "%u", s / st > 1 ? s / st - 1 : 1);
    /* ucp_config_modify keeps a name its own table lacks and applies it to
     * each transport's table when the worker opens it, where the field is
     * named without the transport's prefix (UCX_TCP_KEEPIDLE: KEEPIDLE). */
    const char *set[][2] = {{"KEEPIDLE", step}, {"KEEPINTVL", step}, {"KEEPCNT", cnt}};
    for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++) {
        char var[32];
        snprintf(var, sizeof(var), "UCX_TCP_%s", set[i][0]);
        if (getenv(var) != NULL)
            continue;
        ucs_status_t st_mod = ucp_config_modify(config, set[i][0], set[i][1]);
        if (st_mod != UCS_OK)
            SHOAL_DEBUG("ucp_config_modify(%s=%s) failed: %s", set[i][0], set[i][1],
                        ucs_status_string(st_mod));
    }
}

static shoal_status_t ucx_open(ucx_t *u, unsigned net_timeout)
{
    ucp_config_t *config;
    ucs_status_t st = ucp_config_read(NULL, NULL, &config);
    if (st != UCS_OK) {
        SHOAL_ERROR("reading the UCX configuration (UCX_* variables) failed: %s",
                    ucs_status_string(st));
        return SHOAL_ERR_INVALID;
    }
    /* UCX's own asynchronous thread (connection events) shares the
     * worker's asynchronous context, under a spinlock by default; with more
     * threads than CPUs a thread preempted while holding it stalls the
     * others for a whole time slice (milliseconds per operation here), so
     * ask for a mutex unless the user chose. */
    if (getenv("UCX_USE_MT_MUTEX") == NULL)
        ucp_config_modify(config, "USE_MT_MUTEX", "y");
    ucx_config_net_timeout(config, net_timeout);
    ucp_params_t params = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED,
        .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM |
                    UCP_FEATURE_WAKEUP,
        .mt_workers_shared = 1,
    };
    st = ucp_init(&params, config, &u->context);
    ucp_config_release(config);
    if (st != UCS_OK) {
        SHOAL_ERROR("ucp_init failed: %s; check UCX_TLS and UCX_NET_DEVICES",
                    ucs_status_string(st));
        return SHOAL_ERR_SYSTEM;
    }
    /* Serialized: Shoal's lock keeps the threads that share it apart. */
    ucp_worker_params_t wparams = {
        .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
        .thread_mode = UCS_THREAD_MODE_SERIALIZED,
    };
    st = ucp_worker_create(u->context, &wparams, &u->worker);
    if (st != UCS_OK) {
        SHOAL_ERROR("ucp_worker_create failed: %s", ucs_status_string(st));
        return SHOAL_ERR_SYSTEM;
    }
    /* Before the worker's address is published: no peer can send first. */
    shoal_status_t status = ucx_am_handlers_set(u);
    if (status != SHOAL_OK)
        return status;
    st = ucp_worker_get_efd(u->worker, &u->efd);
    if (st != UCS_OK) {
        SHOAL_ERROR("ucp_worker_get_efd failed: %s; the UCX transports in use (UCX_TLS) must "
                    "support wake-up",
                    ucs_status_string(st));
        return SHOAL_ERR_UNSUPPORTED;
    }
    return SHOAL_OK;
}

__attribute__((visibility("default"))) shoal_status_t
shoal_ucx_plugin_init_v7(const shoal_ucx_plugin_settings_t *set, shoal_bootstrap_t *bs,
                         unsigned generation, const uint8_t *mapped, shoal_transport_t **tr_p)
{
    shoal_status_t status;
    /* The plugin has its own copy of the logger: same level, same PE prefix. */
    shoal_log_level = set->level;
    shoal_log_configure(set->subsys, set->file);
    shoal_log_set_pe(bs->rank);
    ucx_t *u = calloc(1, sizeof(*u));
    if (u == NULL)
        return SHOAL_ERR_NOMEM;
    u->bs = bs;
    u->npes = bs->npes;
    u->efd = -1;
    u->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (u->wake_fd < 0) {
        SHOAL_ERROR("cannot make an eventfd for the UCX progress thread: %m");
        free(u);
        return SHOAL_ERR_SYSTEM;
    }
    u->generation = generation;
    u->wait_yield_ns = (uint64_t)set->wait_yield_us * 1000u;
    u->wait_sleep_ns = set->wait_sleep_us * 1000u;
    u->wait_sleep_grow = set->wait_sleep_grow;
    u->peers = calloc((size_t)bs->npes, sizeof(*u->peers));
    if (u->peers == NULL) {
        status = SHOAL_ERR_NOMEM;
        goto out_release;
    }
    shoal_bootstrap_gather_t addrs = {0};
    status = ucx_open(u, set->net_timeout);
    shoal_status_t gather_status = ucx_gather_addresses(u, status == SHOAL_OK, &addrs);
    if (status == SHOAL_OK)
        status = gather_status;
    if (status != SHOAL_OK)
        goto out_release;

    /* Serve peers from here on: wire-up messages from PEs that connect to us
     * are handled even while this PE is still connecting. */
    if (pthread_create(&u->progress_thread, NULL, ucx_progress_main, u) != 0) {
        SHOAL_ERROR("cannot start the UCX progress thread: %m");
        status = SHOAL_ERR_SYSTEM;
        goto out_release;
    }
    u->progress_running = 1;

    int nremote = 0;
    for (int pe = 0; pe < bs->npes; pe++) {
        if (pe == bs->rank || mapped[pe])
            continue;
        size_t addr_len;
        const void *addr = shoal_bootstrap_gather_at(&addrs, pe, &addr_len);
        status = ucx_connect(u, pe, addr, addr_len);
        if (status != SHOAL_OK)
            goto out_release;
        nremote++;
    }
    shoal_bootstrap_gather_free(&addrs);
    SHOAL_DEBUG("UCX transport: %d PEs on other hosts", nremote);
    u->tr.ops = &ucx_ops;
    u->tr.priv = u;
    *tr_p = &u->tr;
    return SHOAL_OK;

out_release:
    shoal_bootstrap_gather_free(&addrs);
    ucx_release(u);
    return status;
}
