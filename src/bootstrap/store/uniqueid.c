/*
 * Unique IDs (shmemx_get_uniqueid): the process that asks for one starts the
 * config store right away and gets 128 bytes that lead PEs to it. The
 * program passes them to every PE through its own channel (MPI_Bcast, a
 * file, torch.distributed); they hold the job secret, so that channel must
 * be private to the job.
 *
 * Layout (big-endian), every other byte zero:
 *    0  "SHID"           4  format version (1)   5  address family (4 or 6)
 *    6  port (u16)       8  address (16 bytes; IPv4 in the first 4)
 *   24  IPv6 scope (u32) 28  job secret (32 bytes)
 *   60  FNV-1a checksum of bytes 0..59 (u32), so a damaged ID is named as such
 */
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bootstrap/store/config.h"
#include "bootstrap/store/server_thread.h"
#include "util/log.h"

#define UID_VERSION 1
#define UID_CHECKED 60 /* bytes covered by the checksum */

static pthread_mutex_t uid_lock = PTHREAD_MUTEX_INITIALIZER;
static int uid_made;
static uint8_t uid_bytes[SHOAL_STORE_UNIQUEID_BYTES];

static uint32_t fnv1a(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

static void put_be(uint8_t *p, uint32_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

static uint32_t get_be(const uint8_t *p, int bytes)
{
    uint32_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | p[i];
    return v;
}

void shoal_store_uid_encode(const shoal_store_uid_t *uid, uint8_t id[SHOAL_STORE_UNIQUEID_BYTES])
{
    memset(id, 0, SHOAL_STORE_UNIQUEID_BYTES);
    memcpy(id, "SHID", 4);
    id[4] = UID_VERSION;
    if (uid->addr.ss.ss_family == AF_INET) {
        const struct sockaddr_in *s4 = (const struct sockaddr_in *)&uid->addr.ss;
        id[5] = 4;
        memcpy(id + 6, &s4->sin_port, 2); /* already big-endian */
        memcpy(id + 8, &s4->sin_addr, 4);
    } else {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&uid->addr.ss;
        id[5] = 6;
        memcpy(id + 6, &s6->sin6_port, 2);
        memcpy(id + 8, &s6->sin6_addr, 16);
        put_be(id + 24, s6->sin6_scope_id, 4);
    }
    memcpy(id + 28, uid->secret, SHOAL_STORE_SECRET_BYTES);
    put_be(id + UID_CHECKED, fnv1a(id, UID_CHECKED), 4);
}

shoal_status_t shoal_store_uid_decode(const uint8_t id[SHOAL_STORE_UNIQUEID_BYTES],
                                      shoal_store_uid_t *uid_p, char *why, size_t why_size)
{
    shoal_store_uid_t uid;

    if (memcmp(id, "SHID", 4) != 0) {
        snprintf(why, why_size, "it was not made by shmemx_get_uniqueid of Shoal");
        return SHOAL_ERR_INVALID;
    }
    if (id[4] != UID_VERSION) {
        snprintf(why, why_size, "it has format version %u, this Shoal reads version %u", id[4],
                 UID_VERSION);
        return SHOAL_ERR_INVALID;
    }
    if (get_be(id + UID_CHECKED, 4) != fnv1a(id, UID_CHECKED)) {
        snprintf(why, why_size,
                 "it is damaged (checksum mismatch): pass all %d bytes "
                 "unchanged",
                 SHOAL_STORE_UNIQUEID_BYTES);
        return SHOAL_ERR_INVALID;
    }
    for (size_t i = UID_CHECKED + 4; i < SHOAL_STORE_UNIQUEID_BYTES; i++)
        if (id[i] != 0) {
            snprintf(why, why_size, "its reserved bytes are not zero");
            return SHOAL_ERR_INVALID;
        }
    memset(&uid, 0, sizeof(uid));
    if (id[5] == 4) {
        struct sockaddr_in *s4 = (struct sockaddr_in *)&uid.addr.ss;
        for (int i = 12; i < 28; i++)
            if (id[i] != 0) {
                snprintf(why, why_size, "its IPv4 address has stray bytes");
                return SHOAL_ERR_INVALID;
            }
        s4->sin_family = AF_INET;
        memcpy(&s4->sin_port, id + 6, 2);
        memcpy(&s4->sin_addr, id + 8, 4);
        uid.addr.len = sizeof(*s4);
    } else if (id[5] == 6) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&uid.addr.ss;
        s6->sin6_family = AF_INET6;
        memcpy(&s6->sin6_port, id + 6, 2);
        memcpy(&s6->sin6_addr, id + 8, 16);
        s6->sin6_scope_id = get_be(id + 24, 4);
        uid.addr.len = sizeof(*s6);
    } else {
        snprintf(why, why_size, "address family %u is neither 4 nor 6", id[5]);
        return SHOAL_ERR_INVALID;
    }
    if (get_be(id + 6, 2) == 0) {
        snprintf(why, why_size, "its port is 0");
        return SHOAL_ERR_INVALID;
    }
    memcpy(uid.secret, id + 28, SHOAL_STORE_SECRET_BYTES);
    *uid_p = uid;
    memset(&uid, 0, sizeof(uid));
    return SHOAL_OK;
}

shoal_status_t shoal_store_uniqueid_check(const uint8_t id[SHOAL_STORE_UNIQUEID_BYTES])
{
    shoal_store_uid_t uid;
    char why[160];
    if (shoal_store_uid_decode(id, &uid, why, sizeof(why)) != SHOAL_OK) {
        SHOAL_ERROR("the unique ID is not valid: %s", why);
        return SHOAL_ERR_INVALID;
    }
    memset(&uid, 0, sizeof(uid));
    return SHOAL_OK;
}

static int is_wildcard(const shoal_store_sockaddr_t *sa)
{
    if (sa->ss.ss_family == AF_INET)
        return ((const struct sockaddr_in *)&sa->ss)->sin_addr.s_addr == htonl(INADDR_ANY);
    return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)&sa->ss)->sin6_addr);
}

/* The address the ID carries (port still to be set) and where to listen. */
static shoal_status_t choose_addresses(const shoal_env_t *env, shoal_store_sockaddr_t *adv_p,
                                       shoal_store_sockaddr_t *listen_p)
{
    char why[200];
    uint16_t port = 0;
    shoal_store_addr_t store;
    int store_set = env->set.store;

    if (store_set) {
        if (shoal_store_addr_parse(env->store, 0, &store, why, sizeof(why)) != SHOAL_OK) {
            SHOAL_ERROR("SHOAL_STORE='%s' is not host:port or [IPv6]:port: %s", env->store, why);
            return SHOAL_ERR_INVALID;
        }
        port = store.port;
    }
    if (env->store_advertise_iface && *env->store_advertise_iface) {
        if (shoal_store_iface_addr(env->store_advertise_iface, env->store_ipv6, port, adv_p, why,
                                   sizeof(why)) != SHOAL_OK) {
            SHOAL_ERROR("SHOAL_STORE_ADVERTISE_IFACE=%s: %s", env->store_advertise_iface, why);
            return SHOAL_ERR_INVALID;
        }
    } else if (store_set) {
        if (shoal_store_resolve(&store, adv_p, why, sizeof(why)) != SHOAL_OK) {
            SHOAL_ERROR("SHOAL_STORE='%s': %s", env->store, why);
            return SHOAL_ERR_INVALID;
        }
    } else {
        shoal_store_default_addr(env->store_ipv6, port, adv_p);
    }
    if (env->store_listen_iface && *env->store_listen_iface) {
        if (shoal_store_iface_addr(env->store_listen_iface, env->store_ipv6, port, listen_p, why,
                                   sizeof(why)) != SHOAL_OK) {
            SHOAL_ERROR("SHOAL_STORE_LISTEN_IFACE=%s: %s", env->store_listen_iface, why);
            return SHOAL_ERR_INVALID;
        }
    } else {
        *listen_p = *adv_p;
    }
    if (is_wildcard(adv_p)) /* "listen everywhere" is no address to connect to */
        shoal_store_default_addr(adv_p->ss.ss_family == AF_INET6, port, adv_p);
    return SHOAL_OK;
}

shoal_status_t shoal_store_uniqueid_create(uint8_t id[SHOAL_STORE_UNIQUEID_BYTES])
{
    const shoal_env_t *env;
    shoal_store_uid_t uid;
    shoal_store_sockaddr_t listen, bound;
    shoal_store_certs_t certs;
    shoal_store_host_conf_t conf;
    shoal_status_t status;

    pthread_mutex_lock(&uid_lock);
    if (uid_made) {
        memcpy(id, uid_bytes, sizeof(uid_bytes));
        pthread_mutex_unlock(&uid_lock);
        return SHOAL_OK;
    }
    memset(&uid, 0, sizeof(uid));
    env = shoal_env_get();
    status = env != NULL ? SHOAL_OK : SHOAL_ERR_INVALID;
    if (status != SHOAL_OK)
        goto out;
    status = choose_addresses(env, &uid.addr, &listen);
    if (status != SHOAL_OK)
        goto out;
    memset(&conf, 0, sizeof(conf));
    status = shoal_store_config_security(env, &conf.security, &certs);
    if (status != SHOAL_OK)
        goto out;
    status = shoal_store_random(uid.secret, sizeof(uid.secret));
    if (status != SHOAL_OK)
        goto out;
    conf.npes = 0;
    conf.join_timeout_ms = env->store_join_timeout ? (uint64_t)env->store_join_timeout * 1000u : 1;
    conf.secret = uid.secret;
    conf.certs = &certs;
    conf.listen = listen;
    shoal_store_mark_started();
    status = shoal_store_host_start(&conf, &bound);
    if (status != SHOAL_OK)
        goto out;
    /* The ID names the advertised address with the port actually bound. */
    if (uid.addr.ss.ss_family == AF_INET)
        ((struct sockaddr_in *)&uid.addr.ss)->sin_port =
            bound.ss.ss_family == AF_INET ? ((struct sockaddr_in *)&bound.ss)->sin_port
                                          : ((struct sockaddr_in6 *)&bound.ss)->sin6_port;
    else
        ((struct sockaddr_in6 *)&uid.addr.ss)->sin6_port =
            bound.ss.ss_family == AF_INET ? ((struct sockaddr_in *)&bound.ss)->sin_port
                                          : ((struct sockaddr_in6 *)&bound.ss)->sin6_port;
    shoal_store_uid_encode(&uid, uid_bytes);
    uid_made = 1;
    memcpy(id, uid_bytes, sizeof(uid_bytes));
out:
    memset(&uid, 0, sizeof(uid));
    pthread_mutex_unlock(&uid_lock);
    return status;
}
