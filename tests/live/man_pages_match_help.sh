#!/usr/bin/env bash
# Every option a command's --help lists is in the OPTIONS of its man page
# (as generated from man/*.scd), and every option the page lists is in
# --help; every command of `bhscope --help` has its page and its entry in
# bhscope(8); every bhtune parameter in the module's source is in bhtune(4).
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
command -v scdoc > /dev/null || skip_all "scdoc is not installed (make deps)"
make -s --no-print-directory man
pages=build/man

# help_options CMD...: the options of an argp --help, one a line, sorted
# ("-C", "--per-cpu", "--hook"): the option column of lines that start
# with an option, before the description.
help_options() {
	"$@" --help | awk 'match($0, /^ +-/) && RLENGTH >= 3 && RLENGTH <= 7 {
		sub(/^ +/, ""); sub(/  .*/, "")
		n = split($0, w, /, */)
		for (i = 1; i <= n; i++) {
			sub(/[=[].*/, "", w[i])
			if (w[i] ~ /^(-[A-Za-z?]|--[a-z0-9-]+)$/)
				print w[i]
		}
	}' | sort -u
}

# page_options PAGE SECTION...: the options a man page lists under the
# named sections (the bold words that begin a tagged paragraph).
page_options() {
	local page=$1
	shift
	awk -v want="$(printf '%s\n' "$@")" '
		BEGIN { n = split(want, w, "\n"); for (i = 1; i <= n; i++) ok[w[i]] = 1 }
		/^\.SH / { sec = substr($0, 5); gsub(/"/, "", sec); next }
		(sec in ok) && /^\\fB-/ {
			line = $0
			gsub(/\\&/, "", line)
			while (match(line, /\\fB-[^\\]*\\fR/)) {
				print substr(line, RSTART + 3, RLENGTH - 6)
				line = substr(line, RSTART + RLENGTH)
			}
		}' "$page" | sort -u
}

# same_options NAME HELP-FILE PAGE-FILE: PASS when equal, else say which.
same_options() {
	local only_help only_page
	only_help=$(comm -23 "$2" "$3" | tr '\n' ' ')
	only_page=$(comm -13 "$2" "$3" | tr '\n' ' ')
	if [[ -z $only_help && -z $only_page ]]; then
		pass "$1"
	else
		fail "$1" "in --help only: ${only_help:-none}; in the man page only: ${only_page:-none}"
	fi
}

tmp=$(mktemp -d /tmp/bhscope-man.XXXXXX)
on_exit "rm -rf '$tmp'"

commands=$("$BHSCOPE" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
check bhscope_help_lists_commands test -n "$commands"
for cmd in $commands; do
	page=$pages/bhscope-$cmd.8
	if [[ ! -f $page ]]; then
		fail "${cmd}_has_a_man_page" "no $page (man/bhscope-$cmd.8.scd)"
		continue
	fi
	help_options "$BHSCOPE" "$cmd" > "$tmp/help"
	page_options "$page" OPTIONS > "$tmp/page"
	check "${cmd}_help_lists_options" test -s "$tmp/help"
	same_options "${cmd}_options_match_the_man_page" "$tmp/help" "$tmp/page"
	check "${cmd}_in_bhscope_8" grep -q "^\\\\fB$cmd\\\\fR\$" "$pages/bhscope.8"
	check "bhscope_8_refers_to_bhscope_${cmd}_8" grep -q "bhscope-$cmd\\\\fR(8)" "$pages/bhscope.8"
done
# And no page, nor entry, for a command that does not exist.
for page in "$pages"/bhscope-*.8; do
	cmd=${page##*/bhscope-}
	cmd=${cmd%.8}
	check "page_${cmd}_is_a_command" grep -qx "$cmd" <<< "$commands"
done
awk '/^\.SH COMMANDS/ { on = 1; next } /^\.SH/ { on = 0 }
	on && /^\\fB[a-z0-9]+\\fR$/ { gsub(/\\f[BR]/, ""); print }' \
	"$pages/bhscope.8" | sort > "$tmp/page"
sort <<< "$commands" > "$tmp/help"
same_options bhscope_8_commands_are_the_commands "$tmp/help" "$tmp/page"

for sub in meta sync; do
	help_options "$BHBENCH" "$sub" > "$tmp/help"
	page_options "$pages/bhbench.1" "COMMON OPTIONS" "${sub^^} OPTIONS" > "$tmp/page"
	same_options "bhbench_${sub}_options_match_the_man_page" "$tmp/help" "$tmp/page"
done

# The environment variables the sources read (getenv), each in the
# ENVIRONMENT section of a page (systemd's NOTIFY_SOCKET: bhscope-serve(8)).
grep -rhoE 'getenv\("[A-Z_]+"\)' user | sed 's/getenv("//; s/")//' | sort -u > "$tmp/help"
for page in "$pages"/*.[0-9]; do
	awk '/^\.SH ENVIRONMENT/ { on = 1; next } /^\.SH/ { on = 0 }
		on && /^\\fB[A-Z_]+\\fR/ { sub(/^\\fB/, ""); sub(/\\fR.*/, ""); print }' "$page"
done | sort -u > "$tmp/page"
check sources_read_environment_variables test -s "$tmp/help"
missing=$(comm -23 "$tmp/help" "$tmp/page" | tr '\n' ' ')
if [[ -z $missing ]]; then pass environment_variables_documented
else fail environment_variables_documented "in no ENVIRONMENT section: $missing"; fi

# bhtune(4): the module's parameters, as its source declares them.
grep -ho 'module_param[a-z_]*(\s*[a-z_]*' kmod/*.c | sed 's/.*(\s*//' | sort -u > "$tmp/help"
awk '/^\.SH PARAMETERS/ { on = 1; next } /^\.SH/ { on = 0 }
	on && /^\\fB[a-z_]+\\fR$/ { gsub(/\\f[BR]/, ""); print }' "$pages/bhtune.4" |
	sort -u > "$tmp/page"
check bhtune_has_parameters test -s "$tmp/help"
same_options bhtune_4_parameters_match_the_module "$tmp/help" "$tmp/page"
finish
