/* digest.c — the hashes native binaries compute: SHA-1 for the WebSocket handshake's accept key
 * (RFC 6455; written here, so a program that serves WebSockets, such as the observer's, never
 * loads OpenSSL) and SHA-256 (`String sha256Hex`, store file names) from OpenSSL, loaded on the
 * first use (runtime/openssl_load.c). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lpnet.h"
#include "openssl_load.h"

static uint32_t rol(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

static void sha1_block(uint32_t h[5], const unsigned char *p) {
    uint32_t w[80];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 80; i++) w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20) f = (b & c) | (~b & d), k = 0x5A827999;
        else if (i < 40) f = b ^ c ^ d, k = 0x6ED9EBA1;
        else if (i < 60) f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDC;
        else f = b ^ c ^ d, k = 0xCA62C1D6;
        uint32_t t = rol(a, 5) + f + e + k + w[i];
        e = d, d = c, c = rol(b, 30), b = a, a = t;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}

void lpn_sha1(const void *data, size_t n, unsigned char out[20]) {
    uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    const unsigned char *p = data;
    size_t left = n;
    for (; left >= 64; p += 64, left -= 64) sha1_block(h, p);
    unsigned char last[128] = {0};
    memcpy(last, p, left);
    last[left] = 0x80;
    size_t len = left < 56 ? 64 : 128;
    uint64_t bits = (uint64_t)n * 8;
    for (int i = 0; i < 8; i++) last[len - 1 - i] = (unsigned char)(bits >> (8 * i));
    sha1_block(h, last);
    if (len == 128) sha1_block(h, last + 64);
    for (int i = 0; i < 20; i++) out[i] = (unsigned char)(h[i / 4] >> (24 - 8 * (i % 4)));
}

void lpn_sha256(const void *data, size_t n, unsigned char out[32]) {
    static unsigned char *(*sha256)(const unsigned char *, size_t, unsigned char *);
    if (!sha256) {
        char err[200] = "OpenSSL has no SHA256";
        void *h = lprt__openssl(err, sizeof err);
        if (!h || !(sha256 = (__typeof__(sha256))dlsym(h, "SHA256"))) {
            fprintf(stderr, "lp: cannot compute SHA-256: %s\n", err);
            exit(70);
        }
    }
    sha256(data, n, out);
}
