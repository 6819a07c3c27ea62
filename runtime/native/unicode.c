/* unicode.c — the class bits and full case mappings of a code point, read from the tables
 * compiler/unicode_tables.py generates from Python's str methods (the ones lp run uses). */
#include <stdint.h>

#include "lpn.h"

extern const uint16_t lpn_uni_stage1[];
extern const uint8_t lpn_uni_blocks[][128];
extern const uint32_t lpn_uni_upper_count, lpn_uni_lower_count;
extern const uint32_t lpn_uni_upper[][4], lpn_uni_lower[][4];

int lpn_uni_props(uint64_t c) { return c < 0x110000 ? lpn_uni_blocks[lpn_uni_stage1[c >> 7]][c & 127] : 0; }

int lpn_uni_case(uint64_t c, int upper, uint32_t out[3]) {
    const uint32_t (*t)[4] = upper ? lpn_uni_upper : lpn_uni_lower;
    uint32_t lo = 0, n = upper ? lpn_uni_upper_count : lpn_uni_lower_count, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t[mid][0] < c) lo = mid + 1;
        else hi = mid;
    }
    if (lo == n || t[lo][0] != c) {
        out[0] = (uint32_t)c;
        return 1;
    }
    int k = 0;
    while (k < 3 && t[lo][1 + k]) out[k] = t[lo][1 + k], k++;
    return k;
}
