/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --timing where the lookup's exit proves it alone and no entry probe
 * runs: the program that starts the timings would cost every lookup a
 * trampoline call of its own (1.1 points of create-heavy ops/s on 6.1),
 * so a thread attaches it for a window of LRU_TIMING_WINDOW_MS in every
 * LRU_TIMING_PERIOD_MS, the first at once, and it times one lookup in
 * N / LRU_TIMING_DENSE (at least one in 1) meanwhile. Each attach and
 * detach costs too (the trampoline and ftrace's records are rewritten:
 * windows of 0.25 s every 4 s cost 0.8 points on 6.1 under instruction
 * counting), hence the long period. Below LRU_TIMING_DENSE (--timing 8,
 * --timing 1: every lookup) it stays attached.
 */
#ifndef BHSCOPE_LRU_TIMING_H
#define BHSCOPE_LRU_TIMING_H

#define LRU_TIMING_WINDOW_MS	1000
#define LRU_TIMING_PERIOD_MS	60000
#define LRU_TIMING_DENSE	(LRU_TIMING_PERIOD_MS / LRU_TIMING_WINDOW_MS)

struct bpf_program;
struct lru_timing_cycle;

/*
 * Starts the thread that attaches prog (fentry) for window_ms in every
 * period_ms, from now. NULL, with errno, if it cannot.
 */
struct lru_timing_cycle *lru_timing_cycle_start(struct bpf_program *prog,
						unsigned int window_ms,
						unsigned int period_ms);

/* Stops it and detaches prog; NULL is fine. */
void lru_timing_cycle_stop(struct lru_timing_cycle *c);

#endif /* BHSCOPE_LRU_TIMING_H */
