/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bhtune's livepatch system state, for a cumulative livepatch that is to
 * replace bhtune (Documentation/livepatch/system-state.rst).
 *
 * While bhtune owns the buffer-head LRU, buffer heads are referenced from
 * its own per-CPU LRU, and only bhtune's callbacks empty it.  A cumulative
 * patch (replace = true) disables bhtune without running them, so
 * livepatch refuses one that does not declare this state: "not compatible
 * with the already installed livepatches".  One that declares it (same id,
 * version >= BHTUNE_KLP_STATE_VERSION) takes the LRU over:
 *
 *	pre_patch:	state = klp_get_prev_state(BHTUNE_KLP_STATE_ID);
 *			if (state) ((struct bhtune_klp_state_data *)
 *				    state->data)->release();
 *	post_unpatch:	the same with ->takeover(), so that a replacement
 *			reverted before it completed gives the LRU back.
 *
 * release() makes bhtune's lookup bypass its LRU and empties it, as
 * bhtune does before its own unpatching; during the replacement's
 * transition the kernel's LRU is the only one filled, and every version
 * of the drains empties it.  takeover() is what bhtune does once its own
 * patching completed.  Both sleep (they wait for every CPU).
 */
#ifndef _BHTUNE_KLP_STATE_H
#define _BHTUNE_KLP_STATE_H

#define BHTUNE_KLP_STATE_ID		0x62687475UL	/* "bhtu" */
#define BHTUNE_KLP_STATE_VERSION	1

struct bhtune_klp_state_data {
	void (*release)(void);
	void (*takeover)(void);
};

#endif /* _BHTUNE_KLP_STATE_H */
