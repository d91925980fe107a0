/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What bash completion offers for a command, read from its argp tables,
 * so that the two never drift apart: every option (children and aliases
 * included, hidden ones left out) and argp's own (-?, --help, --usage,
 * -V, --version), one a line as "WORD<TAB>ARG", ARG being what the option
 * takes as argp prints it ("FILE", "DIR", "DEV", "a|b|c": the values) or
 * empty. bhscope --complete CMD and bhbench --complete CMD print them for
 * completion/bhscope.
 */
#ifndef BHSCOPE_ARGP_WORDS_H
#define BHSCOPE_ARGP_WORDS_H

#include <argp.h>
#include <stdio.h>

void argp_words_print(FILE *out, const struct argp *a);

#endif /* BHSCOPE_ARGP_WORDS_H */
