/* Argument packing: one 8-byte little-endian slot per kernel parameter.
 *
 * The same slots serve both backends: the CPU entry reads them as its `args` array, and
 * cuLaunchKernel reads each parameter's leading bytes through a pointer to its slot. Floats are
 * rounded straight from the double (never through float first, which would round twice).
 */
#include <string.h>

#include "tilec_launcher.h"

int tl_code_is_float(char code) {
    switch (code) {
    case TL_CODE_F16:
    case TL_CODE_BF16:
    case TL_CODE_F32:
    case TL_CODE_F64:
        return 1;
    case TL_CODE_POINTER:
    case TL_CODE_BOOL:
    case TL_CODE_I8:
    case TL_CODE_I16:
    case TL_CODE_I32:
    case TL_CODE_I64:
    case TL_CODE_U8:
    case TL_CODE_U16:
    case TL_CODE_U32:
    case TL_CODE_U64:
        return 0;
    default:
        return -1;
    }
}

/* Inclusive range of an integer code, as signed bounds (unsigned 64-bit handled apart). */
static int int_bounds(char code, int64_t *lo, int64_t *hi) {
    switch (code) {
    case TL_CODE_BOOL: *lo = 0; *hi = 1; return TL_OK;
    case TL_CODE_I8: *lo = INT8_MIN; *hi = INT8_MAX; return TL_OK;
    case TL_CODE_I16: *lo = INT16_MIN; *hi = INT16_MAX; return TL_OK;
    case TL_CODE_I32: *lo = INT32_MIN; *hi = INT32_MAX; return TL_OK;
    case TL_CODE_I64: *lo = INT64_MIN; *hi = INT64_MAX; return TL_OK;
    case TL_CODE_U8: *lo = 0; *hi = UINT8_MAX; return TL_OK;
    case TL_CODE_U16: *lo = 0; *hi = UINT16_MAX; return TL_OK;
    case TL_CODE_U32: *lo = 0; *hi = UINT32_MAX; return TL_OK;
    case TL_CODE_U64:
    case TL_CODE_POINTER: *lo = 0; *hi = INT64_MAX; return TL_OK;
    default: return TL_ERR_CODE;
    }
}

int tl_pack_int(char code, int64_t value, int is_unsigned_value, uint64_t *slot) {
    int64_t lo, hi;
    if (int_bounds(code, &lo, &hi) != TL_OK) {
        return TL_ERR_CODE;
    }
    if (is_unsigned_value) {
        /* value holds a uint64 above INT64_MAX: only 64-bit unsigned parameters take it. */
        if (code != TL_CODE_U64 && code != TL_CODE_POINTER) {
            return TL_ERR_RANGE;
        }
    } else if (value < lo || value > hi) {
        return TL_ERR_RANGE;
    }
    *slot = (uint64_t)value;
    return TL_OK;
}

uint64_t tl_round_float(double value, int ebits, int mbits) {
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    uint64_t sign = (bits >> 63) << (ebits + mbits);
    int exp = (int)((bits >> 52) & 0x7ff);
    uint64_t man = bits & ((UINT64_C(1) << 52) - 1);
    uint64_t inf = ((UINT64_C(1) << ebits) - 1) << mbits;
    if (exp == 0x7ff) {
        return sign | inf | (man ? UINT64_C(1) << (mbits - 1) : 0);
    }
    if (exp == 0) {
        /* zero, or a double subnormal: far below half the smallest subnormal of any target */
        return sign;
    }
    int bias = (1 << (ebits - 1)) - 1;
    int e = exp - 1023 + bias;
    int shift = 52 - mbits + (e >= 1 ? 0 : 1 - e);
    if (shift > 60) {
        return sign;
    }
    uint64_t full = (UINT64_C(1) << 52) | man;
    uint64_t q = full >> shift;
    uint64_t rem = full & ((UINT64_C(1) << shift) - 1);
    uint64_t half = UINT64_C(1) << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) {
        q++;
    }
    /* q carries the implicit bit for normals, so a rounding carry bumps the exponent. */
    uint64_t magnitude = e >= 1 ? ((uint64_t)(e - 1) << mbits) + q : q;
    return sign | (magnitude >= inf ? inf : magnitude);
}

int tl_pack_float(char code, double value, uint64_t *slot) {
    switch (code) {
    case TL_CODE_F16: *slot = tl_round_float(value, 5, 10); return TL_OK;
    case TL_CODE_BF16: *slot = tl_round_float(value, 8, 7); return TL_OK;
    case TL_CODE_F32: *slot = tl_round_float(value, 8, 23); return TL_OK;
    case TL_CODE_F64: memcpy(slot, &value, sizeof value); return TL_OK;
    default: return TL_ERR_CODE;
    }
}
