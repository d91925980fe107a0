#!/usr/bin/env bash
# The VM bench's guest order (tests/vm/harness/guest-order.awk) on wall times whose
# best order is worked out by hand: with two slots, where each slot takes
# the next guest as it frees up, the order ends as soon as the best split
# of the guests allows; ties and a single slot stay longest first.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
# order JOBS "SECONDS GUEST"...: the order, one line
order() {
	local jobs=$1
	shift
	printf '%s\n' "$@" | awk -v jobs="$jobs" -f tests/vm/harness/guest-order.awk | paste -sd' '
}

# Longest first runs 6.12 (1000) + 6.12+full (470) + 6.1+full (360) = 1830
# beside 6.1 (890) + cloud (740) = 1630; the best split is 1000 + 740 beside
# 890 + 470 + 360 = 1740, which this order gives: 6.1 frees first at 890
# and takes 6.12+full, 6.12 frees at 1000 and takes cloud.
beats_longest_first() {
	[[ $(order 2 "1000 6.12" "890 6.1" "740 6.1-cloud" "470 6.12+full" "360 6.1+full") == \
		"6.12 6.1 6.12+full 6.1-cloud 6.1+full" ]]
}

# Longest first is already best here (60 + 30 beside 50 + 40, 90 each):
# it stays.
keeps_longest_first_on_a_tie() {
	[[ $(order 2 "60 a" "50 b" "40 c" "30 d") == "a b c d" ]]
}

one_slot_keeps_the_order() {
	[[ $(order 1 "3 a" "2 b" "1 c") == "a b c" ]]
}

# A guest never timed counts 0 s: it never moves the end, so it stays
# last (the tie rule) while the timed ones are still put in their best
# order (as in beats_longest_first).
untimed_stays_last_behind_the_best_order() {
	[[ $(order 2 "1000 6.12" "890 6.1" "740 6.1-cloud" "470 6.12+full" "360 6.1+full" "0 new") == \
		"6.12 6.1 6.12+full 6.1-cloud 6.1+full new" ]]
}

# Past 7 guests (5040 orders) longest first, as given.
many_guests_longest_first() {
	[[ $(order 2 "9 a" "8 b" "7 c" "6 d" "5 e" "4 f" "3 g" "2 h") == "a b c d e f g h" ]]
}

no_guests_no_output() {
	[[ -z $(order 2) ]]
}

# durations.seed, the order of a run with no times of its own (a fresh
# clone), has a time for each guest make check boots, and none for a
# guest it does not: one left out would count 0 s and start last.
seed_times_every_default_guest() {
	local guests seeded
	guests=$(sed -n 's/^VM_DEFAULT_GUESTS="\(.*\)"$/\1/p' tests/vm/harness/vmcheck.sh |
		tr ' ' '\n' | sort)
	seeded=$(awk 'NF == 2 && $2 > 0 {print $1}' tests/vm/harness/durations.seed | sort)
	[[ -n $guests && $guests == "$seeded" ]]
}

check beats_longest_first beats_longest_first
check keeps_longest_first_on_a_tie keeps_longest_first_on_a_tie
check one_slot_keeps_the_order one_slot_keeps_the_order
check untimed_stays_last_behind_the_best_order untimed_stays_last_behind_the_best_order
check many_guests_longest_first many_guests_longest_first
check no_guests_no_output no_guests_no_output
check seed_times_every_default_guest seed_times_every_default_guest
finish
