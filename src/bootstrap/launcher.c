/*
 * The "launcher" bootstrap: a PE started by shoalrun. shoalrun hosts the
 * config store's logic (bootstrap/store/logic.c) and gives every PE one end
 * of a socketpair (SHOAL_LAUNCHER_FD) and its rank (SHOAL_RANK of
 * SHOAL_NPES); the PE speaks the store's protocol over it through the store
 * client (bootstrap/store/client.c). This file only checks what shoalrun
 * handed down (read with the other settings, util/env_table.h) and passes
 * it on. shoalrun binds each socketpair to the rank
 * it gave, so a PE cannot claim another's rank.
 *
 * The socket is the PE's lifeline: if shoalrun is gone, nothing the PE could
 * still do would be seen by anyone, so the client logs why and exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/store/store.h"
#include "util/env.h"
#include "util/log.h"

/* A non-negative decimal set by shoalrun (a row of util/env_table.h). */
static shoal_status_t env_int(const char *name, const char *text, int *value_p)
{
    char *end;
    long v;

    errno = 0;
    v = text ? strtol(text, &end, 10) : -1;
    if (text == NULL || *text == '\0' || *end != '\0' || errno != 0 || v < 0 || v > INT_MAX) {
        SHOAL_ERROR("%s='%s' is missing or not a number; it should have been set by shoalrun "
                    "(SHOAL_LAUNCHER_FD is set)",
                    name, text ? text : "");
        return SHOAL_ERR_INVALID;
    }
    *value_p = (int)v;
    return SHOAL_OK;
}

shoal_status_t shoal_bootstrap_launcher_init(shoal_bootstrap_t *bs)
{
    int fd, rank, npes;

    if (!shoal_env.set.launcher_fd)
        return SHOAL_ERR_NOT_FOUND;
    if (env_int("SHOAL_LAUNCHER_FD", shoal_env.launcher_fd, &fd) != SHOAL_OK ||
        env_int("SHOAL_RANK", shoal_env.rank, &rank) != SHOAL_OK ||
        env_int("SHOAL_NPES", shoal_env.npes, &npes) != SHOAL_OK)
        return SHOAL_ERR_INVALID;
    if (npes < 1 || rank >= npes) {
        SHOAL_ERROR("inconsistent job from shoalrun: SHOAL_RANK=%d SHOAL_NPES=%d", rank, npes);
        return SHOAL_ERR_INVALID;
    }
    /* A child of a PE inherits the variable but not the fd (it is
     * close-on-exec from here on), and the number may since name another file. */
    int type = 0;
    socklen_t type_len = sizeof(type);
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &type_len) != 0 || type != SOCK_STREAM) {
        SHOAL_ERROR("SHOAL_LAUNCHER_FD=%d is not the launcher's socket (%s); was this program "
                    "started by shoalrun? (a child of a PE is not a PE)",
                    fd, type ? "not a stream socket" : strerror(errno));
        return SHOAL_ERR_INVALID;
    }
    if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
        SHOAL_ERROR("fcntl(SHOAL_LAUNCHER_FD=%d, FD_CLOEXEC) failed: %m", fd);
        return SHOAL_ERR_INVALID;
    }
    return shoal_bootstrap_store_attach(bs, fd, rank, npes);
}
