# shellcheck shell=bash
# Sourced by the completion tests.

# complete_words SCRIPT BINDIR LINE: what bash completion offers at the end
# of LINE (a command line being typed), one candidate a line, as bash would
# after a TAB: bash-completion loaded, then SCRIPT, with BINDIR first in
# PATH (the options come from the commands' own tables: PROG --complete).
# LINE's first word names the program, and the function: _bhscope, _bhbench.
complete_words() {
	bash --norc --noprofile -c '
		. /usr/share/bash-completion/bash_completion
		. "$1"
		PATH=$2:$PATH
		compopt() { :; } # outside a real completion it only complains
		line=$3
		read -ra COMP_WORDS <<< "$line"
		[[ $line == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE=$line
		COMP_POINT=${#line}
		"_${COMP_WORDS[0]}" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$1" "$2" "$3"
}
