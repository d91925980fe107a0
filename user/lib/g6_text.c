// SPDX-License-Identifier: GPL-2.0
/*
 * "%.6g" for v in [1e-4, 1): v = mant / 2^shift exactly (a double), so
 * v * 10^n is mant * 10^n / 2^shift, an exact 128-bit quotient and
 * remainder; rounded half to even on a tie, as glibc rounds in the
 * default rounding mode. With 6 significant digits and v's decimal
 * exponent X in -4..-1, %g takes %f's form with 5 - X decimals, less
 * trailing zeros; X is that of v rounded to 6 digits, one more where the
 * rounding reaches the next power of 10.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/g6_text.h"

/* round(mant * 10^n / 2^shift), half to even */
static uint64_t scaled(uint64_t mant, int shift, int n)
{
	unsigned __int128 x = mant, half, rem;
	uint64_t q;

	while (n--)
		x *= 10;
	q = (uint64_t)(x >> shift);
	rem = x & (((unsigned __int128)1 << shift) - 1);
	half = (unsigned __int128)1 << (shift - 1);
	return q + (rem > half || (rem == half && (q & 1)));
}

void g6_text(double v, char *buf, size_t len)
{
	char digits[6], *p = buf;
	unsigned __int128 x;
	uint64_t mant, q;
	int e, n, end, k = 0;

	if (!(v >= 1e-4 && v < 1.0) || len < 16) {
		snprintf(buf, len, "%.6g", v);
		return;
	}
	/* v = f * 2^e, f in [0.5, 1): mant = f * 2^53, an integer */
	mant = (uint64_t)ldexp(frexp(v, &e), 53);
	/* -X: the least k with v * 10^k >= 1 (v >= 1e-4: k <= 4) */
	x = mant;
	do {
		x *= 10;
		k++;
	} while (x >> (53 - e) == 0);
	n = 5 + k;
	q = scaled(mant, 53 - e, n);
	if (q >= 1000000) {		/* rounded up to 10^(X + 1) */
		if (k == 1) {
			buf[0] = '1';
			buf[1] = '\0';
			return;
		}
		q /= 10;
		n--;
	}
	for (int i = 5; i >= 0; i--, q /= 10)
		digits[i] = '0' + q % 10;
	for (end = 6; end > 1 && digits[end - 1] == '0'; end--)
		;
	/* "0.", n - 6 zeros, the significant digits */
	*p++ = '0';
	*p++ = '.';
	for (int i = 6; i < n; i++)
		*p++ = '0';
	for (int i = 0; i < end; i++)
		*p++ = digits[i];
	*p = '\0';
}
