/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BHSCOPE_G6_TEXT_H
#define BHSCOPE_G6_TEXT_H

#include <stddef.h>

/*
 * v as printf("%.6g") writes it, byte for byte. Values in [1e-4, 1), the
 * hit ratios that --whatif prints 64 of per device each interval, are
 * converted with integer arithmetic (several times faster than printf);
 * the rest go to snprintf. len >= 16.
 */
void g6_text(double v, char *buf, size_t len);

#endif
