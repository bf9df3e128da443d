/*
 * A byte stream between a PE and the config store: plain TCP
 * (store/link_tcp.c) or TLS 1.3 over it (store/link_tls.c), behind one small ops
 * struct so the client and the server are written once. Sockets are
 * non-blocking; every call returns at once with bytes moved or with what it
 * waits for. The job secret's derived keys live in store/link_tls.c too.
 */
#ifndef SHOAL_BOOTSTRAP_STORE_LINK_H
#define SHOAL_BOOTSTRAP_STORE_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "bootstrap/store/proto.h"
#include "util/status.h"

/* Results of link calls other than a byte count. */
enum {
    SHOAL_STORE_IO_WANT_READ = -1,
    SHOAL_STORE_IO_WANT_WRITE = -2,
    SHOAL_STORE_IO_EOF = -3,
    SHOAL_STORE_IO_ERROR = -4, /* the cause is in link->error */
};

#define SHOAL_STORE_SECRET_BYTES 32

typedef struct shoal_store_link shoal_store_link_t;

typedef struct {
    uint32_t version; /* 1; lets the struct grow */
    const char *name; /* "tcp" or "tls" */
    /* Drives the handshake: 0 when done, else an SHOAL_STORE_IO_* code. */
    int (*handshake)(shoal_store_link_t *link);
    /* Bytes moved (> 0) or an SHOAL_STORE_IO_* code. */
    long (*read)(shoal_store_link_t *link, void *buf, size_t len);
    long (*write)(shoal_store_link_t *link, const void *buf, size_t len);
    /* Frees the link and closes its socket. */
    void (*destroy)(shoal_store_link_t *link);
} shoal_store_link_ops_t;

struct shoal_store_link {
    const shoal_store_link_ops_t *ops;
    int fd;
    char error[256]; /* why the last call failed, for messages */
    int sys_errno;   /* the system error behind the last SHOAL_STORE_IO_ERROR, or 0 */
    void *priv;
};

static inline int shoal_store_link_handshake(shoal_store_link_t *l)
{
    return l->ops->handshake(l);
}
static inline long shoal_store_link_read(shoal_store_link_t *l, void *buf, size_t len)
{
    return l->ops->read(l, buf, len);
}
static inline long shoal_store_link_write(shoal_store_link_t *l, const void *buf, size_t len)
{
    return l->ops->write(l, buf, len);
}
static inline void shoal_store_link_destroy(shoal_store_link_t *l)
{
    if (l != NULL)
        l->ops->destroy(l);
}

/* Plain TCP over a connected non-blocking socket (the link owns it). */
shoal_status_t shoal_store_link_tcp_create(int fd, shoal_store_link_t **link_p);

/* ---- TLS ----------------------------------------------------------------- */

/* Certificate paths for SHOAL_STORE_SEC_CERT. */
typedef struct {
    char cert[512];  /* this side's certificate (chain) in PEM */
    char key[512];   /* its private key in PEM */
    char ca[512];    /* CA certificate(s) the peer's certificate must chain to */
    char crl[512];   /* optional CRL in PEM; "" for none */
    int verify_name; /* a client checks the store's name/IP against its certificate */
} shoal_store_certs_t;

typedef struct shoal_store_tls shoal_store_tls_t;

/* A TLS 1.3 context for one side: PSK from `secret` or certificates. Logs the
 * cause (file, OpenSSL's reason) and returns an error when it cannot be made. */
shoal_status_t shoal_store_tls_create(int server, shoal_store_security_t security,
                                      const uint8_t secret[SHOAL_STORE_SECRET_BYTES],
                                      const shoal_store_certs_t *certs, shoal_store_tls_t **tls_p);
void shoal_store_tls_destroy(shoal_store_tls_t *tls);

/* A TLS link over the connected socket `fd` (the link owns it). A client
 * checks the store's certificate against `peer_host` (a name or an address
 * literal) when the context verifies names. */
shoal_status_t shoal_store_link_tls_create(shoal_store_tls_t *tls, int fd, const char *peer_host,
                                           shoal_store_link_t **link_p);

/* The public fingerprint of a job secret sent in the greeting (HKDF-SHA256,
 * a label of its own, so it reveals nothing about the TLS key). */
shoal_status_t shoal_store_key_id(const uint8_t secret[SHOAL_STORE_SECRET_BYTES],
                                  uint8_t key_id[SHOAL_STORE_KEY_ID_BYTES]);

/* Fills `out` with cryptographically random bytes. */
shoal_status_t shoal_store_random(void *out, size_t len);

#endif
