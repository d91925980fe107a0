/* SPDX-License-Identifier: GPL-2.0 */
/* The bhscope subcommands; each takes its own argv (argv[0] = its name). */
#ifndef BHSCOPE_CMD_H
#define BHSCOPE_CMD_H

#include <argp.h>

int cmd_jbd2(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_lru(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_serve(int argc, char **argv);

int cmd_record(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_sweep(int argc, char **argv);

/* Their option tables, which bash completion reads (bhscope --complete). */
extern const struct argp jbd2_argp, tune_argp, lru_argp, simulate_argp,
	serve_argp, record_argp, compare_argp, sweep_argp;

#endif /* BHSCOPE_CMD_H */
