/* The "did you mean" hint of a "does not understand" report: the nearest selector the receiver's
   class answers, chosen exactly as `lp run` chooses it (lp/interp/interp.py `not_understood`, which
   uses Python's difflib.get_close_matches(selector, names, n=1, cutoff=0.75)): the highest
   SequenceMatcher ratio 2*M/T at or above 0.75, ties going to the greater name. Strings are compared
   as Unicode code points, as Python compares them. Only a failing send runs this. */
#include <stdlib.h>
#include <string.h>

#include "lpn.h"

typedef struct { const uint32_t *a, *b; size_t la, lb; const unsigned char *popular; size_t *prev, *cur; } matcher;

static size_t decode(const char *s, uint32_t *out) {   /* UTF-8 → code points; answers the count */
    const unsigned char *p = (const unsigned char *)s;
    size_t n = 0;
    while (*p) {
        uint32_t c = *p++;
        int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
        if (more) c &= 0x3F >> more;
        while (more-- > 0 && (*p & 0xC0) == 0x80) c = (c << 6) | (*p++ & 0x3F);
        out[n++] = c;
    }
    return n;
}

/* difflib's find_longest_match without junk: the longest a[alo:ahi] == b[blo:bhi] block, the
   earliest in a, then in b; b's "popular" elements (autojunk) start no match but extend one. */
static size_t longest(matcher *m, size_t alo, size_t ahi, size_t blo, size_t bhi, size_t *bi, size_t *bj) {
    size_t besti = alo, bestj = blo, best = 0;
    memset(m->prev, 0, (m->lb + 1) * sizeof *m->prev);
    for (size_t i = alo; i < ahi; i++) {
        memset(m->cur, 0, (m->lb + 1) * sizeof *m->cur);
        for (size_t j = blo; j < bhi; j++) {
            if (m->b[j] != m->a[i] || m->popular[j]) continue;
            size_t k = m->cur[j + 1] = m->prev[j] + 1;   /* index shifted by one: prev[j] is j-1 */
            if (k > best) { besti = i - k + 1; bestj = j - k + 1; best = k; }
        }
        size_t *t = m->prev; m->prev = m->cur; m->cur = t;
    }
    while (besti > alo && bestj > blo && m->a[besti - 1] == m->b[bestj - 1]) { besti--; bestj--; best++; }
    while (besti + best < ahi && bestj + best < bhi && m->a[besti + best] == m->b[bestj + best]) best++;
    *bi = besti;
    *bj = bestj;
    return best;
}

static size_t matched(matcher *m, size_t alo, size_t ahi, size_t blo, size_t bhi) {  /* get_matching_blocks' total */
    size_t i, j, k = longest(m, alo, ahi, blo, bhi, &i, &j);
    if (k == 0) return 0;
    size_t n = k;
    if (alo < i && blo < j) n += matched(m, alo, i, blo, j);
    if (i + k < ahi && j + k < bhi) n += matched(m, i + k, ahi, j + k, bhi);
    return n;
}

static int codepoints_cmp(const uint32_t *x, size_t nx, const uint32_t *y, size_t ny) {
    for (size_t k = 0; k < nx && k < ny; k++)
        if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
    return nx < ny ? -1 : nx > ny;
}

const char *lpn_near_selector(const char *selector, const char *const *names) {
    if (names == NULL) return NULL;
    size_t ls = strlen(selector), maxn = 0;
    for (const char *const *n = names; *n; n++) if (strlen(*n) > maxn) maxn = strlen(*n);
    uint32_t *b = malloc((ls + 1) * sizeof *b), *a = malloc((maxn + 1) * sizeof *a),
             *besta = malloc((maxn + 1) * sizeof *besta);
    size_t lb = decode(selector, b), lbest = 0;
    unsigned char *popular = calloc(lb + 1, 1);
    if (lb >= 200) {   /* difflib's autojunk: an element more frequent than 1% + 1 is popular */
        for (size_t j = 0; j < lb; j++) {
            size_t count = 0;
            for (size_t k = 0; k < lb; k++) count += b[k] == b[j];
            popular[j] = count > lb / 100 + 1;
        }
    }
    matcher m = {a, b, 0, lb, popular, calloc(lb + 1, sizeof(size_t)), calloc(lb + 1, sizeof(size_t))};
    const char *best = NULL;
    double best_ratio = 0;
    for (const char *const *n = names; *n; n++) {
        if (strcmp(*n, selector) == 0) continue;
        m.la = decode(*n, a);
        size_t total = m.la + lb;
        double ratio = total ? 2.0 * (double)matched(&m, 0, m.la, 0, lb) / (double)total : 1.0;
        if (ratio < 0.75) continue;
        if (best == NULL || ratio > best_ratio || (ratio == best_ratio && codepoints_cmp(a, m.la, besta, lbest) > 0)) {
            best = *n;
            best_ratio = ratio;
            memcpy(besta, a, m.la * sizeof *a);
            lbest = m.la;
        }
    }
    free(m.prev); free(m.cur); free(popular); free(a); free(b); free(besta);
    return best;
}
