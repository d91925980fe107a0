#!/usr/bin/env bash
# bash completion of bhscope, as a user presses TAB: subcommands, each
# command's options (as its --help lists them), --hook's kinds, tune's
# actions and keys, the devices of the mounted journals for -d, files, and
# after record's `--` a command.
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

check script_parses bash -n "$script"
check l_completes_to_lru offers_exactly "bhscope l" lru
check s_offers_the_s_commands offers_exactly "bhscope s" simulate serve sweep
check every_command_offered offers_exactly "bhscope " lru simulate jbd2 tune record \
	serve compare sweep --help --version
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
check record_workload_is_a_command offers_word "bhscope record -o x.json -- fs_ma" fs_mark

if [[ $(id -u) -eq 0 ]]; then
	ram_ext4 32 defaults
	check device_of_a_mounted_journal offers_word "bhscope jbd2 -d " "$LOOPNAME"
	umount "$MNT"
	check unmounted_journal_not_offered bash -c "! grep -qxF '$LOOPNAME' <<< '$(offers "bhscope jbd2 -d ")'"
else
	echo "SKIP: $TEST_NAME/device_of_a_mounted_journal: needs root (mount)"
fi
finish
