/* mm_lex.h — the Matrix Market reader's tokens and number parsers: blanks,
 * comments, counts and reals (bit-identical to strtod, without it on the
 * common paths). Static functions in a header of their own, included by
 * mm_read.c alone, so that its line loop inlines them as before. */
#ifndef SPB_MM_LEX_H
#define SPB_MM_LEX_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- tokens and numbers -------------------------------------------------- */

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    return p;
}

static int is_blank_line(const char *p, const char *end) { return skip_blanks(p, end) == end; }

static int is_comment_line(const char *p, const char *end)
{
    p = skip_blanks(p, end);
    return p < end && *p == '%';
}

static int token_ends(const char *p, const char *end)
{
    return p == end || *p == ' ' || *p == '\t';
}

/* Where parse_count clamps: no count reaches it in any machine's memory. */
#define MM_ENTRIES_BEYOND ((int64_t)1 << 62)

/* Unsigned decimal integer; values above 2^62 are clamped (caller rejects). */
static int parse_count(const char **pp, const char *end, int64_t *out)
{
    const char *p = *pp;
    if (p < end && *p == '+') p++;
    if (p == end || (unsigned)(*p - '0') > 9) return 0;
    int64_t v = 0;
    while (p < end && (unsigned)(*p - '0') <= 9) {
        if (v < MM_ENTRIES_BEYOND / 10)
            v = v * 10 + (*p - '0');
        else
            v = MM_ENTRIES_BEYOND;
        p++;
    }
    if (!token_ends(p, end)) return 0;
    *out = v;
    *pp = p;
    return 1;
}

static const double exact_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

#if defined(__x86_64__) && LDBL_MANT_DIG == 64
/* Up to 19 significant digits (mant < 2^64) times 10^exp10, |exp10| <= 27,
 * in x87 extended precision: mant and 10^|exp10| (5^27 < 2^64) are exact,
 * so the product or quotient carries one rounding, within half a 64-bit ulp
 * of the true value. Rounding that to double is then correct unless the
 * extended result sits within one 64-bit ulp of a double halfway point
 * (low 11 mantissa bits near 0x400); those rare cases return 0 and go to
 * strtod. */
static int extended_convert(uint64_t mant, int exp10, double *out)
{
    static const long double pow10l[28] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,
                                           1e7L,  1e8L,  1e9L,  1e10L, 1e11L, 1e12L, 1e13L,
                                           1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L,
                                           1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
    long double r =
        exp10 < 0 ? (long double)mant / pow10l[-exp10] : (long double)mant * pow10l[exp10];
    uint64_t bits;
    memcpy(&bits, &r, sizeof bits); /* x87 layout: the low 8 bytes are the mantissa */
    uint64_t low = bits & 0x7ff;
    if (low >= 0x3ff && low <= 0x401) return 0;
    *out = (double)r;
    return 1;
}
#else
static int extended_convert(uint64_t mant, int exp10, double *out)
{
    (void)mant;
    (void)exp10;
    (void)out;
    return 0;
}
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Eight ASCII digits at once (SWAR): whether all eight bytes are '0'..'9',
 * and their value, first character most significant. */
static inline int eight_digits(const char *p, uint32_t *value)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    /* a byte is a digit when its high nibble is 3 and adding 6 keeps it 3 */
    uint64_t high =
        (v & 0xF0F0F0F0F0F0F0F0ull) | (((v + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4);
    if (high != 0x3333333333333333ull) return 0;
    v -= 0x3030303030303030ull;
    v = v * 10 + (v >> 8); /* even bytes: two-digit numbers */
    v = ((v & 0x000000FF000000FFull) * (100 + (1000000ull << 32)) +
         ((v >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32))) >>
        32;
    *value = (uint32_t)v;
    return 1;
}
#else
static inline int eight_digits(const char *p, uint32_t *value)
{
    (void)p;
    (void)value;
    return 0;
}
#endif

/* Appends the run of decimal digits at p to *mant (wrapping past 19 digits:
 * the caller counts digits and redoes long significands). */
static inline const char *scan_digits(const char *p, const char *end, uint64_t *mant)
{
    uint64_t m = *mant;
    uint32_t eight;
    while (end - p >= 8 && eight_digits(p, &eight)) {
        m = m * 100000000u + eight;
        p += 8;
    }
    while (p < end && (unsigned)(*p - '0') <= 9) m = m * 10 + (uint64_t)(*p++ - '0');
    *mant = m;
    return p;
}

/* Significand of more than 19 digits: keeps the first 19 significant ones
 * and notes whether any nonzero digit was dropped. */
static void long_significand(const char *p, const char *end, uint64_t *mant, int *exp10,
                             int *inexact)
{
    int significant = 0, fraction = 0;
    *mant = 0;
    *exp10 = 0;
    *inexact = 0;
    for (; p < end; p++) {
        if (*p == '.') {
            fraction = 1;
            continue;
        }
        if ((unsigned)(*p - '0') > 9) break;
        int d = *p - '0';
        if (significant < 19) {
            if (*mant || d) {
                *mant = *mant * 10 + (uint64_t)d;
                significant++;
            }
            *exp10 -= fraction;
        } else {
            *exp10 += !fraction;
            *inexact |= d != 0;
        }
    }
}

/* Decimal floating-point number. Numbers whose significand fits in 53 bits
 * with a power of ten up to 22 are converted exactly by one multiplication or
 * division (both operands exact, one rounding); up to 19 digits with powers
 * up to 27 go through extended precision; all others go to strtod, so every
 * result is the correctly rounded value strtod would give. Returns 1, 0 for
 * a malformed number, NUMBER_OVERFLOWS for one beyond the double range. */
#define NUMBER_OVERFLOWS (-1)
static int parse_real(const char **pp, const char *end, double *out)
{
    const char *p = *pp, *token = p;
    int negative = 0;
    if (p < end && (*p == '-' || *p == '+')) negative = *p++ == '-';
    const char *digits_start = p;
    uint64_t mant = 0;
    p = scan_digits(p, end, &mant);
    int digits = (int)(p - digits_start), exp10 = 0, inexact = 0;
    if (p < end && *p == '.') {
        const char *fraction = ++p;
        p = scan_digits(p, end, &mant);
        digits += (int)(p - fraction);
        exp10 = -(int)(p - fraction);
    }
    if (digits == 0) return 0;
    if (digits > 19) long_significand(digits_start, p, &mant, &exp10, &inexact);
    if (p < end && (*p == 'e' || *p == 'E' || *p == 'd' || *p == 'D')) {
        p++;
        int exp_negative = 0;
        if (p < end && (*p == '-' || *p == '+')) exp_negative = *p++ == '-';
        if (p == end || (unsigned)(*p - '0') > 9) return 0;
        int e = 0;
        while (p < end && (unsigned)(*p - '0') <= 9) {
            if (e < 100000) e = e * 10 + (*p - '0');
            p++;
        }
        exp10 += exp_negative ? -e : e;
    }
    if (!token_ends(p, end)) return 0;
    double v;
    if (mant == 0 && !inexact) {
        v = 0.0;
    } else if (!inexact && mant <= ((uint64_t)1 << 53) && exp10 >= -22 && exp10 <= 22) {
        v = (double)mant;
        v = exp10 < 0 ? v / exact_pow10[-exp10] : v * exact_pow10[exp10];
    } else if (!inexact && exp10 >= -27 && exp10 <= 27 && extended_convert(mant, exp10, &v)) {
        /* converted through 64-bit-mantissa arithmetic */
    } else {
        char copy[128];
        size_t len = (size_t)(p - token);
        if (len >= sizeof copy) return 0;
        memcpy(copy, token, len);
        copy[len] = '\0';
        for (size_t i = 0; i < len; i++)
            if (copy[i] == 'd' || copy[i] == 'D') copy[i] = 'e';
        v = strtod(copy, NULL); /* overflow gives +-inf, refused below */
        negative = 0;
    }
    if (!isfinite(v)) return NUMBER_OVERFLOWS;
    *out = negative ? -v : v;
    *pp = p;
    return 1;
}

#endif
