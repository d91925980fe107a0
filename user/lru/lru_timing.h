/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --timing where the lookup's exit proves it alone and no entry probe
 * runs: the program that starts the timings would cost every lookup a
 * trampoline call of its own (1.1 points of create-heavy ops/s on 6.1),
 * so a thread attaches it for a window of LRU_TIMING_WINDOW_MS in every
 * LRU_TIMING_PERIOD_MS, and it times one lookup in N / LRU_TIMING_DENSE
 * meanwhile: one in N overall for a steady load. Below LRU_TIMING_DENSE
 * (--timing 1: every lookup) it stays attached.
 */
#ifndef BHSCOPE_LRU_TIMING_H
#define BHSCOPE_LRU_TIMING_H

#define LRU_TIMING_WINDOW_MS	250
#define LRU_TIMING_PERIOD_MS	4000
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
