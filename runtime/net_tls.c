/* net_tls.c — TLS on a buffered connection, with OpenSSL (the library
 * Python's ssl module uses), driven by the runtime's waits: the handshake,
 * reads and writes never block; OpenSSL's "want read" / "want write" become
 * LPRT_NET_WANT_READ / LPRT_NET_WANT_WRITE, and the caller waits for the
 * socket in that direction and calls again. Clients verify the peer's chain
 * (the system's CAs, or a CA file for private CAs) and its host name.
 * OpenSSL's error queue is per thread, and a call never moves between threads
 * midway, so each call clears it first and reads it before returning.
 * OpenSSL is loaded when the first TLS context is made (openssl_load.c).  */
#include "net_internal.h"
#include "openssl_load.h"

#include <dlfcn.h>
#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

/* Every OpenSSL function this file calls (the macros it uses expand to
 * SSL_CTX_ctrl, SSL_ctrl, BIO_ctrl, BIO_int_ctrl, BIO_set_flags and
 * BIO_clear_flags), each reached through a pointer set by tls_load. */
#define OPENSSL_FUNCTIONS(X)                                                                    \
    X(ERR_peek_last_error) X(ERR_peek_error) X(ERR_error_string_n) X(ERR_clear_error)           \
    X(TLS_client_method) X(TLS_server_method) X(SSL_CTX_new) X(SSL_CTX_free) X(SSL_CTX_ctrl)      \
    X(SSL_CTX_load_verify_locations) X(SSL_CTX_set_default_verify_paths) X(SSL_CTX_set_verify)  \
    X(SSL_CTX_use_certificate_chain_file) X(SSL_CTX_use_PrivateKey_file)                        \
    X(SSL_CTX_check_private_key) X(SSL_new) X(SSL_free) X(SSL_ctrl) X(SSL_set_bio)              \
    X(SSL_set_connect_state) X(SSL_set_accept_state) X(SSL_set1_host) X(SSL_get_error)          \
    X(SSL_get_verify_result) X(SSL_do_handshake) X(SSL_read_ex) X(SSL_write_ex) X(SSL_shutdown) \
    X(X509_verify_cert_error_string) X(BIO_ctrl) X(BIO_int_ctrl) X(BIO_set_flags)               \
    X(BIO_clear_flags) X(BIO_sock_should_retry) X(BIO_s_socket) X(BIO_new) X(BIO_meth_new)      \
    X(BIO_meth_set_write) X(BIO_meth_set_read) X(BIO_meth_get_read) X(BIO_meth_set_puts)        \
    X(BIO_meth_get_puts) X(BIO_meth_set_ctrl) X(BIO_meth_get_ctrl) X(BIO_meth_set_create)       \
    X(BIO_meth_get_create) X(BIO_meth_set_destroy) X(BIO_meth_get_destroy)

#define TLS_POINTER(f) static __typeof__(&f) tls_##f;
OPENSSL_FUNCTIONS(TLS_POINTER)

static pthread_once_t tls_once = PTHREAD_ONCE_INIT;
static int tls_loaded;
static char tls_load_err[200];

static void tls_load_once(void) {
    void *h = lprt__openssl(tls_load_err, sizeof tls_load_err);
    if (!h) return;
#define TLS_RESOLVE(f)                                                                                 \
    if (!(tls_##f = (__typeof__(tls_##f))dlsym(h, #f))) {                                              \
        snprintf(tls_load_err, sizeof tls_load_err, "TLS is not available: OpenSSL has no %s", #f);    \
        return;                                                                                        \
    }
    OPENSSL_FUNCTIONS(TLS_RESOLVE)
    tls_loaded = 1;
}

/* OpenSSL's functions are set, or err says why they cannot be. */
static int tls_load(char *err, size_t cap) {
    pthread_once(&tls_once, tls_load_once);
    if (!tls_loaded) snprintf(err, cap, "%s", tls_load_err);
    return tls_loaded;
}

#define ERR_peek_last_error tls_ERR_peek_last_error
#define ERR_peek_error tls_ERR_peek_error
#define ERR_error_string_n tls_ERR_error_string_n
#define ERR_clear_error tls_ERR_clear_error
#define TLS_client_method tls_TLS_client_method
#define TLS_server_method tls_TLS_server_method
#define SSL_CTX_new tls_SSL_CTX_new
#define SSL_CTX_free tls_SSL_CTX_free
#define SSL_CTX_ctrl tls_SSL_CTX_ctrl
#define SSL_CTX_load_verify_locations tls_SSL_CTX_load_verify_locations
#define SSL_CTX_set_default_verify_paths tls_SSL_CTX_set_default_verify_paths
#define SSL_CTX_set_verify tls_SSL_CTX_set_verify
#define SSL_CTX_use_certificate_chain_file tls_SSL_CTX_use_certificate_chain_file
#define SSL_CTX_use_PrivateKey_file tls_SSL_CTX_use_PrivateKey_file
#define SSL_CTX_check_private_key tls_SSL_CTX_check_private_key
#define SSL_new tls_SSL_new
#define SSL_free tls_SSL_free
#define SSL_ctrl tls_SSL_ctrl
#define SSL_set_bio tls_SSL_set_bio
#define SSL_set_connect_state tls_SSL_set_connect_state
#define SSL_set_accept_state tls_SSL_set_accept_state
#define SSL_set1_host tls_SSL_set1_host
#define SSL_get_error tls_SSL_get_error
#define SSL_get_verify_result tls_SSL_get_verify_result
#define SSL_do_handshake tls_SSL_do_handshake
#define SSL_read_ex tls_SSL_read_ex
#define SSL_write_ex tls_SSL_write_ex
#define SSL_shutdown tls_SSL_shutdown
#define X509_verify_cert_error_string tls_X509_verify_cert_error_string
#define BIO_ctrl tls_BIO_ctrl
#define BIO_int_ctrl tls_BIO_int_ctrl
#define BIO_set_flags tls_BIO_set_flags
#define BIO_clear_flags tls_BIO_clear_flags
#define BIO_sock_should_retry tls_BIO_sock_should_retry
#define BIO_s_socket tls_BIO_s_socket
#define BIO_new tls_BIO_new
#define BIO_meth_new tls_BIO_meth_new
#define BIO_meth_set_write tls_BIO_meth_set_write
#define BIO_meth_set_read tls_BIO_meth_set_read
#define BIO_meth_get_read tls_BIO_meth_get_read
#define BIO_meth_set_puts tls_BIO_meth_set_puts
#define BIO_meth_get_puts tls_BIO_meth_get_puts
#define BIO_meth_set_ctrl tls_BIO_meth_set_ctrl
#define BIO_meth_get_ctrl tls_BIO_meth_get_ctrl
#define BIO_meth_set_create tls_BIO_meth_set_create
#define BIO_meth_get_create tls_BIO_meth_get_create
#define BIO_meth_set_destroy tls_BIO_meth_set_destroy
#define BIO_meth_get_destroy tls_BIO_meth_get_destroy

struct lprt_tls_ctx {
    SSL_CTX *ctx;
};

static void reason(char *err, size_t cap, const char *what) {
    unsigned long e = ERR_peek_last_error();
    char buf[120] = "";
    if (e) ERR_error_string_n(e, buf, sizeof buf);
    snprintf(err, cap, "%s%s%s", what, e ? ": " : "", buf);
    ERR_clear_error();
}

static lprt_tls_ctx *wrap(SSL_CTX *ctx) {
    lprt_tls_ctx *t = calloc(1, sizeof *t);
    if (!t) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    t->ctx = ctx;
    return t;
}

lprt_tls_ctx *lprt_tls_client_ctx(const char *ca_file, char *err, size_t err_cap) {
    if (!tls_load(err, err_cap)) return NULL;
    ERR_clear_error();
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) {
        reason(err, err_cap, "cannot make a TLS context");
        return NULL;
    }
    int ok = ca_file ? SSL_CTX_load_verify_locations(ctx, ca_file, NULL) : SSL_CTX_set_default_verify_paths(ctx);
    if (!ok) {
        reason(err, err_cap, ca_file ? "cannot load the CA file" : "cannot load the system's CAs");
        SSL_CTX_free(ctx);
        return NULL;
    }
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    return wrap(ctx);
}

lprt_tls_ctx *lprt_tls_server_ctx(const char *cert_file, const char *key_file, char *err, size_t err_cap) {
    if (!tls_load(err, err_cap)) return NULL;
    ERR_clear_error();
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) {
        reason(err, err_cap, "cannot make a TLS context");
        return NULL;
    }
    if (SSL_CTX_use_certificate_chain_file(ctx, cert_file) != 1) {
        reason(err, err_cap, "cannot load the certificate file");
        SSL_CTX_free(ctx);
        return NULL;
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, key_file, SSL_FILETYPE_PEM) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
        reason(err, err_cap, "cannot load the key file, or it does not match the certificate");
        SSL_CTX_free(ctx);
        return NULL;
    }
    return wrap(ctx);
}

void lprt_tls_ctx_free(lprt_tls_ctx *t) {
    if (!t) return;
    SSL_CTX_free(t->ctx);
    free(t);
}

/* OpenSSL's socket BIO writes with write(2), which raises SIGPIPE when the
 * peer has gone (and kills a native binary, which does not ignore it as
 * Python does): the same BIO, writing with send(MSG_NOSIGNAL) as net_conn.c. */
static BIO_METHOD *nosig_method;
static pthread_once_t nosig_once = PTHREAD_ONCE_INIT;

static int nosig_write(BIO *b, const char *data, int n) {
    int fd = -1;
    BIO_get_fd(b, &fd);
    errno = 0;
    int w = (int)send(fd, data, (size_t)n, MSG_NOSIGNAL);
    BIO_clear_retry_flags(b);
    if (w <= 0 && BIO_sock_should_retry(w)) BIO_set_retry_write(b);
    return w;
}

static void nosig_init(void) {
    const BIO_METHOD *sock = BIO_s_socket();
    BIO_METHOD *m = BIO_meth_new(BIO_TYPE_SOCKET, "lprt socket");
    if (!m) return;
    BIO_meth_set_write(m, nosig_write);
    BIO_meth_set_read(m, BIO_meth_get_read(sock));
    BIO_meth_set_puts(m, BIO_meth_get_puts(sock));
    BIO_meth_set_ctrl(m, BIO_meth_get_ctrl(sock));
    BIO_meth_set_create(m, BIO_meth_get_create(sock));
    BIO_meth_set_destroy(m, BIO_meth_get_destroy(sock));
    nosig_method = m;
}

int lprt_tls_start(lprt_conn *c, lprt_tls_ctx *t, const char *host) {
    ERR_clear_error();
    if (c->ssl) return -22; /* EINVAL: already TLS */
    if (c->end > c->start) return -71; /* EPROTO: plaintext already read past the handshake */
    pthread_once(&nosig_once, nosig_init);
    SSL *ssl = nosig_method ? SSL_new(t->ctx) : NULL;
    if (!ssl) return -12; /* ENOMEM */
    BIO *bio = BIO_new(nosig_method);
    if (!bio) {
        SSL_free(ssl);
        return -12;
    }
    BIO_set_fd(bio, c->fd, BIO_NOCLOSE);
    SSL_set_bio(ssl, bio, bio);
    if (host) {
        SSL_set_connect_state(ssl);
        SSL_set_tlsext_host_name(ssl, host);
        if (!SSL_set1_host(ssl, host)) {
            SSL_free(ssl);
            return -22;
        }
    } else SSL_set_accept_state(ssl);
    c->ssl = ssl;
    c->tls_err[0] = 0;
    return 0;
}

/* An OpenSSL result as our code (or 0 for end of stream). */
static long code(lprt_conn *c, int ret, const char *what) {
    SSL *ssl = c->ssl;
    switch (SSL_get_error(ssl, ret)) {
    case SSL_ERROR_WANT_READ: return LPRT_NET_WANT_READ;
    case SSL_ERROR_WANT_WRITE: return LPRT_NET_WANT_WRITE;
    case SSL_ERROR_ZERO_RETURN: return 0;
    case SSL_ERROR_SYSCALL:
        if (ERR_peek_error() == 0) return 0; /* the peer closed without close_notify */
        break;
    default: break;
    }
    long v = SSL_get_verify_result(ssl);
    if (v != X509_V_OK) {
        snprintf(c->tls_err, sizeof c->tls_err, "%s: certificate verify failed: %s", what,
                 X509_verify_cert_error_string(v));
        ERR_clear_error();
    } else reason(c->tls_err, sizeof c->tls_err, what);
    return LPRT_NET_TLS;
}

long lprt_tls_handshake(lprt_conn *c) {
    if (!c->ssl) return -22;
    ERR_clear_error();
    int r = SSL_do_handshake(c->ssl);
    if (r == 1) return 0;
    long k = code(c, r, "TLS handshake");
    if (k == 0) {
        snprintf(c->tls_err, sizeof c->tls_err, "TLS handshake: the peer closed the connection");
        return LPRT_NET_TLS;
    }
    return k;
}

long lprt__tls_recv(lprt_conn *c, char *buf, size_t n) {
    ERR_clear_error();
    size_t got = 0;
    if (SSL_read_ex(c->ssl, buf, n, &got) == 1) return (long)got;
    return code(c, 0, "TLS read");
}

long lprt__tls_send(lprt_conn *c, const void *data, size_t n) {
    ERR_clear_error();
    size_t put = 0;
    if (SSL_write_ex(c->ssl, data, n, &put) == 1) return (long)put;
    long k = code(c, 0, "TLS write");
    return k == 0 ? -32 /* EPIPE */ : k;
}

void lprt__tls_free(lprt_conn *c) {
    ERR_clear_error();
    SSL_shutdown(c->ssl); /* one non-blocking try at close_notify */
    SSL_free(c->ssl);
    c->ssl = NULL;
    ERR_clear_error();
}

const char *lprt_tls_error(const lprt_conn *c) { return c->tls_err; }
