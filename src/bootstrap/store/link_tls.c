/*
 * TLS for the config store: TLS 1.3 only (OpenSSL 3), mutual authentication
 * by either
 *  - the job secret: both sides derive an external pre-shared key from it
 *    (HKDF-SHA256) and handshake with it plus an ephemeral key exchange; the
 *    suites are limited to SHA-256 ones because an external PSK is bound to
 *    its hash, and the client accepts no certificate, so only a peer that
 *    knows the secret completes the handshake; or
 *  - certificates: each side presents its certificate and checks the other's
 *    against the CA (and CRL) given in tls_info; the client also checks the
 *    store's name or address unless told not to.
 * The TLS link reads and writes a non-blocking socket; SIGPIPE is blocked
 * in the threads that use it (OpenSSL writes with write(2)).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "bootstrap/store/link.h"
#include "util/log.h"

#define PSK_BYTES 32
#define PSK_SUITES "TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256"

static const unsigned char psk_identity[] = "shoal-store-psk-v1";

struct shoal_store_tls {
    SSL_CTX *ctx;
    int server;
    shoal_store_security_t security;
    int verify_name;
    uint8_t psk[PSK_BYTES];
};

static pthread_once_t tls_once = PTHREAD_ONCE_INIT;
static int tls_ready;
static int tls_ex_index = -1;

/* Without OPENSSL_INIT_NO_ATEXIT, OpenSSL frees its state from an atexit
 * handler while the store's threads may still use it. */
static void tls_init_once(void)
{
    tls_ready = OPENSSL_init_ssl(OPENSSL_INIT_NO_ATEXIT | OPENSSL_INIT_LOAD_SSL_STRINGS |
                                     OPENSSL_INIT_LOAD_CRYPTO_STRINGS,
                                 NULL) == 1;
    if (tls_ready)
        tls_ex_index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, NULL);
}

static shoal_status_t tls_init(void)
{
    pthread_once(&tls_once, tls_init_once);
    if (!tls_ready || tls_ex_index < 0) {
        SHOAL_ERROR("config store: OpenSSL could not be initialized");
        return SHOAL_ERR_SYSTEM;
    }
    return SHOAL_OK;
}

/* OpenSSL's most recent error as text (empties its error queue). */
static void tls_error_text(char *out, size_t size, const char *fallback)
{
    unsigned long e, last = 0;
    while ((e = ERR_get_error()) != 0)
        last = e;
    if (last == 0) {
        snprintf(out, size, "%s", fallback);
        return;
    }
    const char *reason = ERR_reason_error_string(last);
    if (reason != NULL)
        snprintf(out, size, "%s", reason);
    else
        ERR_error_string_n(last, out, size);
}

/* ---- derived keys -------------------------------------------------------- */

static shoal_status_t hkdf(const uint8_t secret[SHOAL_STORE_SECRET_BYTES], const char *label,
                           uint8_t *out, size_t out_len)
{
    shoal_status_t status = SHOAL_ERR_SYSTEM;
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    EVP_KDF_CTX *kctx = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
    static const char salt[] = "shoal config store";
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA256", 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)secret,
                                          SHOAL_STORE_SECRET_BYTES),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, sizeof(salt) - 1),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)label, strlen(label)),
        OSSL_PARAM_construct_end(),
    };
    if (kctx != NULL && EVP_KDF_derive(kctx, out, out_len, params) == 1)
        status = SHOAL_OK;
    else
        SHOAL_ERROR("config store: deriving a key from the job secret failed in OpenSSL");
    EVP_KDF_CTX_free(kctx);
    EVP_KDF_free(kdf);
    return status;
}

shoal_status_t shoal_store_key_id(const uint8_t secret[SHOAL_STORE_SECRET_BYTES],
                                  uint8_t key_id[SHOAL_STORE_KEY_ID_BYTES])
{
    if (tls_init() != SHOAL_OK)
        return SHOAL_ERR_SYSTEM;
    return hkdf(secret, "shoal store key id v1", key_id, SHOAL_STORE_KEY_ID_BYTES);
}

shoal_status_t shoal_store_random(void *out, size_t len)
{
    if (tls_init() != SHOAL_OK)
        return SHOAL_ERR_SYSTEM;
    if (RAND_bytes(out, (int)len) != 1) {
        SHOAL_ERROR("config store: OpenSSL could not make random bytes (RAND_bytes)");
        return SHOAL_ERR_SYSTEM;
    }
    return SHOAL_OK;
}

/* ---- PSK callbacks ------------------------------------------------------- */

static SSL_SESSION *psk_session(SSL *ssl, const shoal_store_tls_t *tls)
{
    static const unsigned char aes128gcm_sha256[] = {0x13, 0x01};
    const SSL_CIPHER *cipher = SSL_CIPHER_find(ssl, aes128gcm_sha256);
    SSL_SESSION *sess = cipher ? SSL_SESSION_new() : NULL;
    if (sess == NULL)
        return NULL;
    if (SSL_SESSION_set1_master_key(sess, tls->psk, sizeof(tls->psk)) != 1 ||
        SSL_SESSION_set_cipher(sess, cipher) != 1 ||
        SSL_SESSION_set_protocol_version(sess, TLS1_3_VERSION) != 1) {
        SSL_SESSION_free(sess);
        return NULL;
    }
    return sess;
}

static int psk_use_session(SSL *ssl, const EVP_MD *md, const unsigned char **id, size_t *idlen,
                           SSL_SESSION **sess_p)
{
    const shoal_store_tls_t *tls = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), tls_ex_index);
    SSL_SESSION *sess;

    *sess_p = NULL;
    /* Only SHA-256 suites are allowed, so a second call asks for SHA-256. */
    if (md != NULL && EVP_MD_is_a(md, "SHA256") != 1)
        return 1;
    sess = psk_session(ssl, tls);
    if (sess == NULL)
        return 0;
    *id = psk_identity;
    *idlen = sizeof(psk_identity) - 1;
    *sess_p = sess; /* OpenSSL takes this reference */
    return 1;
}

static int psk_find_session(SSL *ssl, const unsigned char *identity, size_t identity_len,
                            SSL_SESSION **sess_p)
{
    const shoal_store_tls_t *tls = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), tls_ex_index);

    *sess_p = NULL;
    if (identity_len != sizeof(psk_identity) - 1 ||
        memcmp(identity, psk_identity, identity_len) != 0)
        return 1; /* not ours: continue without a PSK, which then fails */
    *sess_p = psk_session(ssl, tls);
    return *sess_p != NULL;
}

/* ---- contexts ------------------------------------------------------------ */

static shoal_status_t load_certs(SSL_CTX *ctx, int server, const shoal_store_certs_t *certs)
{
    char why[256];
    const char *what = certs->cert;

    if (SSL_CTX_use_certificate_chain_file(ctx, certs->cert) != 1)
        goto fail;
    what = certs->key;
    if (SSL_CTX_use_PrivateKey_file(ctx, certs->key, SSL_FILETYPE_PEM) != 1)
        goto fail;
    if (SSL_CTX_check_private_key(ctx) != 1)
        goto fail;
    what = certs->ca;
    if (SSL_CTX_load_verify_file(ctx, certs->ca) != 1)
        goto fail;
    if (certs->crl[0] != '\0') {
        X509_STORE *store = SSL_CTX_get_cert_store(ctx);
        X509_LOOKUP *lookup = X509_STORE_add_lookup(store, X509_LOOKUP_file());
        what = certs->crl;
        if (lookup == NULL || X509_load_crl_file(lookup, certs->crl, X509_FILETYPE_PEM) < 1)
            goto fail;
        X509_STORE_set_flags(store, X509_V_FLAG_CRL_CHECK);
    }
    SSL_CTX_set_verify(
        ctx, server ? SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT : SSL_VERIFY_PEER, NULL);
    return SHOAL_OK;

fail:
    tls_error_text(why, sizeof(why), "unknown error");
    SHOAL_ERROR("config store TLS: cannot use '%s': %s; check the cert=, key=, ca= and crl= "
                "paths in the TLS settings (SHOAL_STORE_TLS_INFO or "
                "shmemx_set_conf_store_tls)",
                what, why);
    return SHOAL_ERR_INVALID;
}

shoal_status_t shoal_store_tls_create(int server, shoal_store_security_t security,
                                      const uint8_t secret[SHOAL_STORE_SECRET_BYTES],
                                      const shoal_store_certs_t *certs, shoal_store_tls_t **tls_p)
{
    shoal_store_tls_t *tls;
    SSL_CTX *ctx;

    if (tls_init() != SHOAL_OK)
        return SHOAL_ERR_SYSTEM;
    tls = calloc(1, sizeof(*tls));
    if (tls == NULL)
        return SHOAL_ERR_NOMEM;
    tls->server = server;
    tls->security = security;
    ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
    if (ctx == NULL)
        goto fail_ctx;
    tls->ctx = ctx;
    if (SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) != 1 ||
        SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION) != 1)
        goto fail_ctx;
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_TICKET);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    if (server)
        SSL_CTX_set_num_tickets(ctx, 0);
    SSL_CTX_set_ex_data(ctx, tls_ex_index, tls);

    if (security == SHOAL_STORE_SEC_PSK) {
        if (hkdf(secret, "shoal store tls psk v1", tls->psk, sizeof(tls->psk)) != SHOAL_OK)
            goto fail;
        if (SSL_CTX_set_ciphersuites(ctx, PSK_SUITES) != 1)
            goto fail_ctx;
        if (server) {
            SSL_CTX_set_psk_find_session_callback(ctx, psk_find_session);
        } else {
            SSL_CTX_set_psk_use_session_callback(ctx, psk_use_session);
            /* No trusted CA: a server certificate never verifies, so only a
             * handshake on the job's PSK can succeed. */
            SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
        }
    } else {
        if (load_certs(ctx, server, certs) != SHOAL_OK)
            goto fail;
        tls->verify_name = certs->verify_name;
    }
    *tls_p = tls;
    return SHOAL_OK;

fail_ctx : {
    char why[256];
    tls_error_text(why, sizeof(why), "unknown error");
    SHOAL_ERROR("config store: cannot set up a TLS 1.3 context: %s", why);
}
fail:
    OPENSSL_cleanse(tls->psk, sizeof(tls->psk));
    SSL_CTX_free(tls->ctx);
    free(tls);
    return SHOAL_ERR_SYSTEM;
}

void shoal_store_tls_destroy(shoal_store_tls_t *tls)
{
    if (tls == NULL)
        return;
    OPENSSL_cleanse(tls->psk, sizeof(tls->psk));
    SSL_CTX_free(tls->ctx);
    free(tls);
}

/* ---- the TLS link -------------------------------------------------------- */

typedef struct {
    SSL *ssl;
    shoal_store_tls_t *tls;
} tls_link_t;

/* Maps an OpenSSL failure to an IO code, keeping the cause in l->error. */
static int tls_result(shoal_store_link_t *l, int ret)
{
    tls_link_t *t = l->priv;
    int err = SSL_get_error(t->ssl, ret);
    long verify;

    switch (err) {
    case SSL_ERROR_WANT_READ:
        return SHOAL_STORE_IO_WANT_READ;
    case SSL_ERROR_WANT_WRITE:
        return SHOAL_STORE_IO_WANT_WRITE;
    case SSL_ERROR_ZERO_RETURN:
        ERR_clear_error();
        return SHOAL_STORE_IO_EOF;
    case SSL_ERROR_SYSCALL:
        if (ERR_peek_error() == 0) {
            if (errno == 0 || errno == ECONNRESET || errno == EPIPE) {
                snprintf(l->error, sizeof(l->error), "the peer closed the connection");
                return SHOAL_STORE_IO_EOF;
            }
            snprintf(l->error, sizeof(l->error), "%s", strerror(errno));
            l->sys_errno = errno;
            return SHOAL_STORE_IO_ERROR;
        }
        break;
    default:
        break;
    }
    /* A socket error OpenSSL queued (the connection timed out, say): keep
     * its errno, which decides whether the peer is called unreachable. */
    unsigned long first = ERR_peek_error();
    l->sys_errno = first != 0 && ERR_SYSTEM_ERROR(first) ? (int)ERR_GET_REASON(first) : 0;
    tls_error_text(l->error, sizeof(l->error), "TLS error");
    verify = SSL_get_verify_result(t->ssl);
    if (verify != X509_V_OK) {
        size_t n = strlen(l->error);
        snprintf(l->error + n, sizeof(l->error) - n, " (%s)",
                 X509_verify_cert_error_string(verify));
    }
    return SHOAL_STORE_IO_ERROR;
}

static int tls_handshake(shoal_store_link_t *l)
{
    tls_link_t *t = l->priv;
    int ret;

    ERR_clear_error();
    errno = 0;
    ret = SSL_do_handshake(t->ssl);
    if (ret != 1)
        return tls_result(l, ret);
    /* With the job secret, the handshake must have used it: anything else
     * would mean a peer authenticated some other way. */
    if (t->tls->security == SHOAL_STORE_SEC_PSK && !SSL_session_reused(t->ssl)) {
        snprintf(l->error, sizeof(l->error),
                 "the peer did not authenticate with the job "
                 "secret");
        return SHOAL_STORE_IO_ERROR;
    }
    return 0;
}

static long tls_read(shoal_store_link_t *l, void *buf, size_t len)
{
    tls_link_t *t = l->priv;
    size_t n = 0;

    ERR_clear_error();
    errno = 0;
    if (SSL_read_ex(t->ssl, buf, len, &n) == 1)
        return (long)n;
    return tls_result(l, 0);
}

static long tls_write(shoal_store_link_t *l, const void *buf, size_t len)
{
    tls_link_t *t = l->priv;
    size_t n = 0;

    ERR_clear_error();
    errno = 0;
    if (SSL_write_ex(t->ssl, buf, len, &n) == 1)
        return (long)n;
    return tls_result(l, 0);
}

static void tls_destroy(shoal_store_link_t *l)
{
    tls_link_t *t = l->priv;
    if (t != NULL) {
        SSL_free(t->ssl);
        free(t);
    }
    if (l->fd >= 0)
        close(l->fd);
    free(l);
}

static const shoal_store_link_ops_t tls_ops = {
    .version = 1,
    .name = "tls",
    .handshake = tls_handshake,
    .read = tls_read,
    .write = tls_write,
    .destroy = tls_destroy,
};

shoal_status_t shoal_store_link_tls_create(shoal_store_tls_t *tls, int fd, const char *peer_host,
                                           shoal_store_link_t **link_p)
{
    shoal_store_link_t *l = calloc(1, sizeof(*l));
    tls_link_t *t = calloc(1, sizeof(*t));
    char why[256];

    if (l == NULL || t == NULL)
        goto fail;
    l->ops = &tls_ops;
    l->fd = -1; /* owned only on success */
    l->priv = t;
    t->tls = tls;
    t->ssl = SSL_new(tls->ctx);
    if (t->ssl == NULL || SSL_set_fd(t->ssl, fd) != 1)
        goto fail_ssl;
    if (tls->server) {
        SSL_set_accept_state(t->ssl);
    } else {
        SSL_set_connect_state(t->ssl);
        if (tls->security == SHOAL_STORE_SEC_CERT && tls->verify_name && peer_host != NULL) {
            unsigned char addr[16];
            int is_ip = inet_pton(AF_INET, peer_host, addr) == 1 ||
                        inet_pton(AF_INET6, peer_host, addr) == 1;
            int ok = is_ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(t->ssl), peer_host)
                           : SSL_set1_host(t->ssl, peer_host);
            if (ok != 1)
                goto fail_ssl;
            if (!is_ip && SSL_set_tlsext_host_name(t->ssl, peer_host) != 1)
                goto fail_ssl;
        }
    }
    l->fd = fd;
    *link_p = l;
    return SHOAL_OK;

fail_ssl:
    tls_error_text(why, sizeof(why), "unknown error");
    SHOAL_ERROR("config store: cannot start a TLS connection: %s", why);
fail:
    if (t != NULL)
        SSL_free(t->ssl);
    free(t);
    free(l);
    return SHOAL_ERR_SYSTEM;
}
