#!/usr/bin/env bash
# bash completion of bhscope and bhbench, as a user presses TAB: the
# commands, each command's options as its argp tables hold them (PROG
# --complete CMD: every option, aliases such as sweep's --threads
# included, each once, nothing else), the values an option takes (--hook's
# kinds, block devices for -d, files, directories), tune's actions and
# keys, and after record's `--` a command.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
. tests/lib/completion.sh
[[ -f /usr/share/bash-completion/bash_completion ]] ||
	skip_all "bash-completion is not installed (make deps)"
script=completion/bhscope
bindir=$(dirname "$BHSCOPE")
offers() { complete_words "$script" "$bindir" "$1"; }
# offers_word LINE WORD: WORD is among the candidates.
offers_word() { grep -qxF -- "$2" <<< "$(offers "$1")"; }
# offers_exactly LINE WORD...: the candidates are these words, in any order.
offers_exactly() {
	local line=$1
	shift
	diff <(offers "$line" | sort) <(printf '%s\n' "$@" | sort)
}
# no_duplicates LINE: no candidate offered twice.
no_duplicates() { [[ -z $(offers "$1" | sort | uniq -d) ]]; }
# options_are_the_tables PROG CMD: what "PROG CMD -" offers is the option
# words of CMD's tables (--name= where it takes a value), nothing else.
options_are_the_tables() {
	diff <(offers "$1 $2 -" | sort) <("$bindir/$1" --complete "$2" |
		awk -F '\t' '{ print ($1 ~ /^--/ && $2 != "") ? $1 "=" : $1 }' | sort -u)
}

check script_parses bash -n "$script"
check l_completes_to_lru offers_exactly "bhscope l" lru
check s_offers_the_s_commands offers_exactly "bhscope s" simulate serve sweep
check every_command_offered offers_exactly "bhscope " lru simulate jbd2 tune record \
	serve compare sweep -h --help -V --version
for cmd in lru simulate jbd2 tune record serve compare sweep; do
	check "${cmd}_options_are_its_tables" options_are_the_tables bhscope "$cmd"
	check "${cmd}_options_once_each" no_duplicates "bhscope $cmd -"
done
check sweep_threads_offered offers_exactly "bhscope sweep --thr" --threads=
not_offered() { ! offers_word "$1" "$2"; }
check sweep_offers_no_bare_dashes not_offered "bhscope sweep -" --
check jbd2_hook_kinds offers_exactly "bhscope jbd2 --hook=" auto btf raw tracepoint
check bhbench_commands offers_exactly "bhbench " meta sync -h --help -V --version
for cmd in meta sync; do
	check "bhbench_${cmd}_options_are_its_tables" options_are_the_tables bhbench "$cmd"
done
check bhbench_threads_offered offers_exactly "bhbench sync --thr" --threads
check hook_kinds offers_exactly "bhscope lru --hook " auto bhtune fentry kprobe tracepoint
check options_from_help offers_exactly "bhscope lru --wh" --whatif=
check option_taking_a_value offers_word "bhscope serve -" --textfile=
check option_without_a_value offers_word "bhscope serve -" --per-cpu
check tune_actions offers_exactly "bhscope tune " show set reset
check tune_set_keys offers_exactly "bhscope tune set batch_m" batch_min_us= batch_max_us=
check tune_set_keys_after_options offers_exactly "bhscope tune -d loop0 set l" lru_size=

tmp=$(mktemp -d /tmp/bhscope-compl.XXXXXX)
on_exit "rm -rf '$tmp'"
touch "$tmp/lru.trace" "$tmp/base.json" "$tmp/tuned.json" "$tmp/notes.txt"
check simulate_completes_files offers_exactly "bhscope simulate $tmp/lru" "$tmp/lru.trace"
check compare_completes_json_records offers_exactly "bhscope compare $tmp/" \
	"$tmp/base.json" "$tmp/tuned.json"
check record_output_is_json offers_exactly "bhscope record -o $tmp/" \
	"$tmp/base.json" "$tmp/tuned.json"
check record_workload_is_a_command offers_word "bhscope record -o x.json -- fs_ma" fs_mark

# -d: the block devices (names as -d takes them), mounted or not
dev=$(find /sys/class/block -mindepth 1 -maxdepth 1 -printf '%f\n' | head -n 1)
if [[ -n $dev ]]; then
	check block_device_offered offers_word "bhscope jbd2 -d " "$dev"
	check block_device_offered_to_tune offers_word "bhscope tune -d " "$dev"
	check block_device_offered_after_equals offers_word "bhscope lru --device=" "$dev"
fi
if [[ $(id -u) -eq 0 ]]; then
	ram_ext4 32 defaults
	check device_of_a_mounted_journal offers_word "bhscope jbd2 -d " "$LOOPNAME"
	umount "$MNT"
	check unmounted_block_device_offered offers_word "bhscope jbd2 -d " "$LOOPNAME"
else
	echo "SKIP: $TEST_NAME/device_of_a_mounted_journal: needs root (mount)"
fi
finish
