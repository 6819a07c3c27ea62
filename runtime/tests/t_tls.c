/* t_tls.c — TLS on the scheduler (net_tls.c): a private CA and a server
 * certificate for localhost made here with OpenSSL's API; then, between a
 * client fiber and a server fiber over loopback: the handshake driven by the
 * runtime's fd waits, lines and a 1 MB transfer both ways through TLS (writers
 * park on WANT_WRITE), close_notify read as a clean end of stream; a host
 * name that does not match, a CA the client does not trust, a peer that
 * closes during the handshake and one that never answers it (deadline); the
 * contexts' errors (a missing CA file, a key that does not match) and
 * lprt_tls_start's refusals. */
#include "harness.h"

#include <errno.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <unistd.h>

static char dir[64], ca_pem[128], cert_pem[128], key_pem[128], other_key_pem[128];

static void add_ext(X509 *x, X509V3_CTX *ctx, int nid, const char *value) {
    X509_EXTENSION *e = X509V3_EXT_conf_nid(NULL, ctx, nid, value);
    CHECK(e);
    CHECK(X509_add_ext(x, e, -1));
    X509_EXTENSION_free(e);
}

/* a certificate for k named cn, signed by issuer (NULL: self-signed, a CA) */
static X509 *make_cert(EVP_PKEY *k, const char *cn, X509 *issuer, EVP_PKEY *issuer_key, long serial) {
    X509 *x = X509_new();
    CHECK(x);
    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), serial);
    X509_gmtime_adj(X509_getm_notBefore(x), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x), 86400);
    X509_set_pubkey(x, k);
    X509_NAME *name = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
    X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : name);
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer ? issuer : x, x, NULL, NULL, 0);
    add_ext(x, &ctx, NID_subject_key_identifier, "hash");
    if (issuer) {
        add_ext(x, &ctx, NID_basic_constraints, "CA:FALSE");
        add_ext(x, &ctx, NID_authority_key_identifier, "keyid:always");
        add_ext(x, &ctx, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1");
        add_ext(x, &ctx, NID_ext_key_usage, "serverAuth");
    } else {
        add_ext(x, &ctx, NID_basic_constraints, "critical,CA:TRUE");
        add_ext(x, &ctx, NID_key_usage, "critical,keyCertSign,cRLSign");
    }
    CHECK(X509_sign(x, issuer_key ? issuer_key : k, EVP_sha256()) > 0);
    return x;
}

static void write_pem(const char *path, X509 *x, EVP_PKEY *k) {
    FILE *f = fopen(path, "w");
    CHECK(f);
    if (x) CHECK(PEM_write_X509(f, x));
    if (k) CHECK(PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL));
    fclose(f);
}

static void make_pki(void) {
    strcpy(dir, "/tmp/lprt-tls-XXXXXX");
    CHECK(mkdtemp(dir));
    snprintf(ca_pem, sizeof ca_pem, "%s/ca.pem", dir);
    snprintf(cert_pem, sizeof cert_pem, "%s/cert.pem", dir);
    snprintf(key_pem, sizeof key_pem, "%s/key.pem", dir);
    snprintf(other_key_pem, sizeof other_key_pem, "%s/other.pem", dir);
    EVP_PKEY *ca_key = EVP_EC_gen("P-256"), *key = EVP_EC_gen("P-256"), *other = EVP_EC_gen("P-256");
    CHECK(ca_key && key && other);
    X509 *ca = make_cert(ca_key, "LP test CA", NULL, NULL, 1);
    X509 *leaf = make_cert(key, "localhost", ca, ca_key, 2);
    write_pem(ca_pem, ca, NULL);
    write_pem(cert_pem, leaf, NULL);
    write_pem(key_pem, NULL, key);
    write_pem(other_key_pem, NULL, other);
    X509_free(ca);
    X509_free(leaf);
    EVP_PKEY_free(ca_key);
    EVP_PKEY_free(key);
    EVP_PKEY_free(other);
}

static void remove_pki(void) {
    unlink(ca_pem);
    unlink(cert_pem);
    unlink(key_pem);
    unlink(other_key_pem);
    rmdir(dir);
}

/* the handshake, waiting for the socket in whichever direction OpenSSL asks */
static long handshake(lprt_actor *self, lprt_conn *c, int64_t deadline) {
    long r;
    while ((r = lprt_tls_handshake(c)) == LPRT_NET_WANT_READ || r == LPRT_NET_WANT_WRITE)
        if (!lprt_fd_wait(self, lprt_conn_fd(c), r == LPRT_NET_WANT_WRITE ? LPRT_WRITE : LPRT_READ, deadline))
            return LPRT_NET_TIMEOUT;
    return r;
}

#define BIG (1 << 20)

/* BIG bytes of a known pattern, written through TLS and read back checked */
static void send_big(lprt_actor *self, lprt_conn *c) {
    char *buf = malloc(BIG);
    CHECK(buf);
    for (long i = 0; i < BIG; i++) buf[i] = (char)(i * 7);
    CHECK(lprt_conn_write_all_wait(self, c, buf, BIG, lprt_deadline_ms(10000)) == BIG);
    free(buf);
}

static long receive_big(lprt_actor *self, lprt_conn *c) {
    const char *p;
    long got = 0, n;
    while (got < BIG && (n = lprt_conn_read_exact_wait(self, c, 65536, &p, lprt_deadline_ms(10000))) > 0) {
        for (long i = 0; i < n; i++) CHECK(p[i] == (char)((got + i) * 7));
        got += n;
    }
    return got;
}

typedef struct {
    int lfd, port;
    int mode; /* 0: TLS echo, 1: handshake expected to fail, 2: close at once, 3: never answer */
    lprt_tls_ctx *ctx;
    lprt_actor *main;
} srv_arg;

static void server(lprt_actor *self, void *ud) {
    srv_arg *s = ud;
    int fd;
    CHECK(lprt_net_accept_wait(self, s->lfd, lprt_deadline_ms(5000), &fd) == 0);
    lprt_conn *c = lprt_conn_new(fd);
    long result = 0;
    if (s->mode == 2) {
        lprt_conn_free(c);
    } else if (s->mode == 3) {
        const char *bytes; /* wait for the client to give up, reading its ClientHello as plain bytes */
        while (lprt_conn_read_exact_wait(self, c, 1, &bytes, lprt_deadline_ms(5000)) >= 0) {}
        lprt_conn_free(c);
    } else {
        CHECK(lprt_tls_start(c, s->ctx, NULL) == 0);
        long h = handshake(self, c, lprt_deadline_ms(5000));
        if (s->mode == 1) {
            CHECK(h == LPRT_NET_TLS || h == LPRT_NET_EOF || h < 0);
            result = 1;
        } else {
            CHECK(h == 0);
            const char *line;
            long n = lprt_conn_read_line_wait(self, c, 64, &line, lprt_deadline_ms(5000));
            CHECK(n == 5 && memcmp(line, "hello", 5) == 0);
            CHECK(lprt_conn_write_all_wait(self, c, "HELLO\n", 6, lprt_deadline_ms(5000)) == 6);
            long got = receive_big(self, c); /* BIG bytes in, then the same back */
            CHECK(got == BIG);
            send_big(self, c);
            /* the client's close_notify (or its plain close) is a clean end of stream */
            CHECK(lprt_conn_read_line_wait(self, c, 64, &line, lprt_deadline_ms(5000)) == LPRT_NET_EOF);
            result = got;
        }
        lprt_conn_free(c);
    }
    lprt_send(s->main, VAL(result));
}

static lprt_conn *connect_to(lprt_actor *self, int port) {
    int fd;
    CHECK(lprt_net_connect_wait(self, "127.0.0.1", port, lprt_deadline_ms(5000), &fd) == 0);
    return lprt_conn_new(fd);
}

static void start_server(lprt_actor *self, srv_arg *s, int mode, lprt_tls_ctx *ctx) {
    CHECK(lprt_net_listen("127.0.0.1", 0, 16, &s->lfd) == 0);
    s->port = lprt_net_local_port(s->lfd);
    s->mode = mode;
    s->ctx = ctx;
    s->main = self;
    lprt_release(lprt_spawn_fiber(lprt_runtime(self), server, s, 1 << 20));
}

static void echo(lprt_actor *self, lprt_tls_ctx *sctx, lprt_tls_ctx *cctx, const char *host) {
    srv_arg s;
    start_server(self, &s, 0, sctx);
    lprt_conn *c = connect_to(self, s.port);
    CHECK(lprt_tls_start(c, cctx, host) == 0);
    CHECK(lprt_tls_start(c, cctx, host) == -EINVAL); /* already TLS */
    CHECK(handshake(self, c, lprt_deadline_ms(5000)) == 0);
    CHECK(lprt_conn_write_all_wait(self, c, "hello\n", 6, lprt_deadline_ms(5000)) == 6);
    const char *line;
    long n = lprt_conn_read_line_wait(self, c, 64, &line, lprt_deadline_ms(5000));
    CHECK(n == 5 && memcmp(line, "HELLO", 5) == 0);
    send_big(self, c);
    CHECK(receive_big(self, c) == BIG);
    lprt_conn_free(c); /* sends close_notify */
    CHECK(h_recv_num(self) == BIG);
    lprt_net_close(s.lfd);
}

/* a handshake the client refuses: its error names the reason */
static void refused(lprt_actor *self, lprt_tls_ctx *sctx, lprt_tls_ctx *cctx, const char *host, const char *why) {
    srv_arg s;
    start_server(self, &s, 1, sctx);
    lprt_conn *c = connect_to(self, s.port);
    CHECK(lprt_tls_start(c, cctx, host) == 0);
    CHECK(handshake(self, c, lprt_deadline_ms(5000)) == LPRT_NET_TLS);
    const char *err = lprt_tls_error(c);
    if (!strstr(err, why)) fprintf(stderr, "TLS error: %s (wanted %s)\n", err, why);
    CHECK(strstr(err, "certificate verify failed") && strstr(err, why));
    lprt_conn_free(c);
    CHECK(h_recv_num(self) == 1);
    lprt_net_close(s.lfd);
}

static void broken_peers(lprt_actor *self, lprt_tls_ctx *cctx) {
    srv_arg s;
    start_server(self, &s, 2, NULL); /* closes at once */
    lprt_conn *c = connect_to(self, s.port);
    CHECK(lprt_tls_start(c, cctx, "localhost") == 0);
    CHECK(handshake(self, c, lprt_deadline_ms(5000)) == LPRT_NET_TLS);
    CHECK(strlen(lprt_tls_error(c)) > 0);
    lprt_conn_free(c);
    CHECK(h_recv_num(self) == 0);
    lprt_net_close(s.lfd);

    start_server(self, &s, 3, NULL); /* never answers: the deadline ends the handshake */
    c = connect_to(self, s.port);
    CHECK(lprt_tls_start(c, cctx, "localhost") == 0);
    int64_t t0 = lprt_now();
    CHECK(handshake(self, c, lprt_deadline_ms(100)) == LPRT_NET_TIMEOUT);
    CHECK(lprt_now() - t0 >= 90 * 1000000LL);
    lprt_conn_free(c);
    CHECK(h_recv_num(self) == 0);
    lprt_net_close(s.lfd);
}

/* lprt_tls_start refuses a connection with plaintext already buffered past the handshake */
static void plaintext_first(lprt_actor *self, lprt_tls_ctx *cctx) {
    int lfd, port, fd;
    CHECK(lprt_net_listen("127.0.0.1", 0, 16, &lfd) == 0);
    port = lprt_net_local_port(lfd);
    lprt_conn *c = connect_to(self, port);
    CHECK(lprt_net_accept_wait(self, lfd, lprt_deadline_ms(5000), &fd) == 0);
    lprt_conn *srv = lprt_conn_new(fd);
    CHECK(lprt_conn_write_all_wait(self, srv, "plain\nmore", 10, -1) == 10);
    const char *line;
    CHECK(lprt_conn_read_line_wait(self, c, 64, &line, lprt_deadline_ms(5000)) == 5);
    CHECK(lprt_tls_start(c, cctx, "localhost") == -EPROTO);
    lprt_conn_free(srv);
    lprt_conn_free(c);
    lprt_net_close(lfd);
}

static void main_fiber(lprt_actor *self, void *ud) {
    (void)ud;
    char err[256];
    lprt_tls_ctx *sctx = lprt_tls_server_ctx(cert_pem, key_pem, err, sizeof err);
    lprt_tls_ctx *cctx = lprt_tls_client_ctx(ca_pem, err, sizeof err);
    lprt_tls_ctx *system = lprt_tls_client_ctx(NULL, err, sizeof err);
    CHECK(sctx && cctx && system);
    echo(self, sctx, cctx, "localhost");
    echo(self, sctx, cctx, "127.0.0.1"); /* the IP address in subjectAltName */
    refused(self, sctx, cctx, "example.com", "hostname mismatch");
    refused(self, sctx, system, "localhost", "unable to get local issuer certificate");
    broken_peers(self, cctx);
    plaintext_first(self, cctx);
    lprt_tls_ctx_free(sctx);
    lprt_tls_ctx_free(cctx);
    lprt_tls_ctx_free(system);
}

static void contexts(void) {
    char err[256] = "";
    CHECK(lprt_tls_client_ctx("/nonexistent/ca.pem", err, sizeof err) == NULL);
    CHECK(strstr(err, "cannot load the CA file"));
    CHECK(lprt_tls_server_ctx("/nonexistent/cert.pem", key_pem, err, sizeof err) == NULL);
    CHECK(strstr(err, "cannot load the certificate file"));
    CHECK(lprt_tls_server_ctx(cert_pem, other_key_pem, err, sizeof err) == NULL);
    CHECK(strstr(err, "does not match the certificate"));
    lprt_tls_ctx_free(NULL);
}

int main(void) {
    make_pki();
    contexts();
    for (size_t d = 0; d < 3; d++) {
        lprt *rt = h_new(h_domain_counts[d]);
        double t0 = h_secs();
        h_run(rt, lprt_create_fiber(rt, main_fiber, NULL, 1 << 20));
        printf("  domains=%d %.3fs\n", h_domain_counts[d], h_secs() - t0);
    }
    remove_pki();
    printf("ok\n");
    return 0;
}
