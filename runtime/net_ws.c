/* net_ws.c — WebSocket frames (RFC 6455 section 5) read from a connection's
 * buffer and encoded for writing. A frame is parsed only once complete (no
 * state between calls); its payload is unmasked in place. The payload limit
 * is checked from the header, before anything is buffered: a peer announcing
 * a huge frame costs nothing and gets LPRT_WS_TOO_BIG (close code 1009).
 * Messages (fragments, control frames in between, close) are the caller's;
 * a close frame's payload is checked here for both modes (lprt_ws_check_close). */
#include "net_internal.h"

#include <string.h>

long lprt_ws_read_frame(lprt_conn *c, size_t max, int masked, int *opcode, int *fin, const char **out) {
    for (;;) {
        size_t have = c->end - c->start;
        unsigned char *b = (unsigned char *)c->buf + c->start;
        if (have >= 2) {
            int op = b[0] & 0x0f, is_masked = b[1] & 0x80;
            if (b[0] & 0x70) return LPRT_WS_PROTOCOL_ERROR; /* no extensions negotiated */
            if ((op > 2 && op < 8) || op > 10) return LPRT_WS_PROTOCOL_ERROR;
            if (!is_masked != !masked) return LPRT_WS_PROTOCOL_ERROR;
            uint64_t len = b[1] & 0x7f;
            size_t hl = 2;
            if (op >= 8 && (len > 125 || !(b[0] & 0x80))) return LPRT_WS_PROTOCOL_ERROR;
            if (len == 126) hl = 4;
            else if (len == 127) hl = 10;
            if (have >= hl) {
                if (len == 126) len = (uint64_t)b[2] << 8 | b[3];
                else if (len == 127) {
                    len = 0;
                    for (int i = 0; i < 8; i++) len = len << 8 | b[2 + i];
                    if (len >> 63) return LPRT_WS_PROTOCOL_ERROR;
                }
                if (len > max) return LPRT_WS_TOO_BIG;
                size_t total = hl + (is_masked ? 4 : 0) + (size_t)len;
                if (have >= total) {
                    unsigned char *p = b + hl + (is_masked ? 4 : 0);
                    if (is_masked) {
                        const unsigned char *k = b + hl;
                        for (size_t i = 0; i < len; i++) p[i] ^= k[i & 3];
                    }
                    *opcode = op;
                    *fin = (b[0] & 0x80) != 0;
                    *out = (const char *)p;
                    c->start += total;
                    return (long)len;
                }
                long r = lprt__conn_recv(c, total - have);
                if (r == 0) return LPRT_NET_TRUNCATED;
                if (r < 0) return r;
                continue;
            }
        }
        long r = lprt__conn_recv(c, 14);
        if (r == 0) return have == 0 ? LPRT_NET_EOF : LPRT_NET_TRUNCATED;
        if (r < 0) return r;
    }
}

size_t lprt_ws_encode(unsigned char *out, int opcode, int fin, const void *payload, size_t n,
                      const unsigned char *mask_key) {
    size_t hl = 2;
    out[0] = (unsigned char)((fin ? 0x80 : 0) | (opcode & 0x0f));
    if (n < 126) out[1] = (unsigned char)n;
    else if (n <= 0xffff) {
        out[1] = 126;
        out[2] = (unsigned char)(n >> 8);
        out[3] = (unsigned char)n;
        hl = 4;
    } else {
        out[1] = 127;
        for (int i = 0; i < 8; i++) out[2 + i] = (unsigned char)((uint64_t)n >> (56 - 8 * i));
        hl = 10;
    }
    if (mask_key) {
        out[1] |= 0x80;
        memcpy(out + hl, mask_key, 4);
        hl += 4;
    }
    if (n) memcpy(out + hl, payload, n);
    if (mask_key)
        for (size_t i = 0; i < n; i++) out[hl + i] ^= mask_key[i & 3];
    return hl + n;
}

int lprt_ws_close_code_ok(long long code) {
    return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}

int lprt_ws_check_close(const void *payload, size_t n, int *code) {
    const unsigned char *p = payload;
    *code = 1005;
    if (n == 0) return 0;
    if (n == 1) return 1002;
    *code = p[0] << 8 | p[1];
    if (!lprt_ws_close_code_ok(*code)) return 1002;
    if (!lprt_utf8_ok(p + 2, n - 2)) return 1007;
    return 0;
}
