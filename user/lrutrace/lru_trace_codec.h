/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pieces of the version 2 record coding (struct lru_trace_frame) that
 * the writer and the reader share: column order, varints, zigzag.
 */
#ifndef BHSCOPE_LRU_TRACE_CODEC_H
#define BHSCOPE_LRU_TRACE_CODEC_H

#include <stdint.h>

enum lru_trace_column {
	COL_TAGS,
	COL_CPUS,
	COL_BLOCKS,
	COL_SLOTS,
	COL_TIMES,
	COL_EXTRAS,
};

/* The most one record adds to each column. */
static const unsigned int lru_trace_column_max[] = {
	[COL_TAGS] = 1, [COL_CPUS] = 5, [COL_BLOCKS] = 10,
	[COL_SLOTS] = 3, [COL_TIMES] = 10, [COL_EXTRAS] = 1 + 5 + 5 + 5 + 1,
};

static inline uint64_t zigzag(uint64_t d)
{
	return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

static inline uint64_t unzigzag(uint64_t z)
{
	return (z >> 1) ^ -(z & 1);
}

static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/*
 * The varint at buf[*pos], len the bytes readable: 0, or -1 when it runs
 * past len or is longer than 10 bytes (64 bits).
 */
static inline int lru_trace_codec_get_varint(const uint8_t *buf, size_t len, size_t *pos,
					     uint64_t *v)
{
	size_t i = *pos;
	uint64_t x = 0;

	/* away from the end, no bound to check: the common case, unrolled */
	if (__builtin_expect(i + 10 <= len, 1)) {
		const uint8_t *p = buf + i;

		for (unsigned int n = 0; n < 10; n++) {
			x |= (uint64_t)(p[n] & 0x7f) << (7 * n);
			if (p[n] < 0x80) {
				*pos = i + n + 1;
				*v = x;
				return 0;
			}
		}
		return -1;
	}
	for (unsigned int shift = 0; shift < 70; shift += 7) {
		uint8_t b;

		if (i >= len)
			return -1;
		b = buf[i++];
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*pos = i;
			*v = x;
			return 0;
		}
	}
	return -1;
}

#endif /* BHSCOPE_LRU_TRACE_CODEC_H */
