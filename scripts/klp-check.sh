#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# klp-check.sh MODULE.ko FUNCS_SYMBOL
#
# Fails unless every function a livepatch module registers keeps all its
# code inside its own symbol.  The registered functions are the ones the
# klp_func array FUNCS_SYMBOL points at (its relocations into code).
#
# Why: when a patch is disabled, livepatch lets a task switch back to the
# kernel's code only if no return address or interrupted IP on its stack
# lies in [new_func, new_func + new_size) of a registered function
# (klp_check_stack_func() in kernel/livepatch/transition.c, the same test
# in 6.1 and 6.12; new_size comes from the module's kallsyms, the distance
# to the next symbol, never less than the ELF st_size checked here).  Code
# reached by a jump from the registered function (a tail call, a shared
# body, a .cold part) is outside that range, so a task preempted there
# would be let go and rmmod would free the code it is running.  Code
# reached by a call is fine: the return address points back inside.
#
# For each registered function, on its disassembly:
#  - every direct jump lands inside the function, except jumps to
#    __x86_return_thunk, which are returns (CONFIG_RETHUNK);
#  - there is no indirect jump (jump table, indirect tail call);
#  - the last instruction ends the flow (ret, jmp, ud2, int3, or a call of
#    a noreturn function), so nothing falls into the next symbol;
#  - there is no FUNC.cold symbol (hot/cold splitting).
# Prints one line per function; exits 1 if a check failed.  Plain awk
# (mawk), readelf and objdump: what a kernel module build has anyway.
set -euo pipefail

prog=klp-check
[[ $# == 2 ]] || { echo "usage: $0 MODULE.ko FUNCS_SYMBOL" >&2; exit 2; }
ko=$1 funcs=$2
mod=${ko##*/}
die() { echo "$prog: $mod: $*" >&2; exit 1; }
[[ -f $ko ]] || die "no such file"

# awk helper: a hexadecimal string (with or without 0x) as a number
hexfn='function hex(s,   i, c, v) {
	sub(/^0x/, "", s); v = 0
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", tolower(substr(s, i, 1)))
		if (!c) break
		v = v * 16 + c - 1
	}
	return v
}'

syms=$(readelf -sW "$ko") || die "readelf -s failed"
# "INDEX NAME FLAGS" of every section
sects=$(readelf -SW "$ko" | awk '/^ *\[ *[0-9]+\]/ {
	sub(/^ *\[ */, ""); sub(/\]/, "")
	flags = (NF >= 11) ? $(NF - 3) : ""
	print $1, $2, flags
}')
relocs=$(readelf -rW "$ko") || die "readelf -r failed"

# The array: section index, value, size.
read -r arr_ndx arr_val arr_size < <(awk -v n="$funcs" \
	'$8 == n && $4 == "OBJECT" {print $7, $2, $3}' <<<"$syms") ||
	die "no OBJECT symbol $funcs"
arr_sect=$(awk -v i="$arr_ndx" '$1 == i {print $2}' <<<"$sects")
[[ -n $arr_sect ]] || die "no section $arr_ndx for $funcs"

# Relocations inside the array: "SYMBOL TARGET" (symbol value + addend).
targets=$(awk -v rs=".rela$arr_sect" -v lo=$((16#$arr_val)) -v sz="$arr_size" "$hexfn"'
	/^Relocation section / { s = $3; gsub(/\047/, "", s); in_sec = (s == rs); next }
	!in_sec || NF < 5 || $1 !~ /^[0-9a-f]+$/ { next }
	{
		off = hex($1)
		if (off < lo || off >= lo + sz) next
		# Offset Info Type SymValue SymName [+-] Addend
		add = 0
		if ($(NF - 1) == "+") add = hex($NF)
		if ($(NF - 1) == "-") add = -hex($NF)
		print $5, hex($4) + add
	}' <<<"$relocs")

# Each target that is code must be the start of a FUNC symbol.
names=()
while read -r tsym taddr; do
	[[ -n $tsym ]] || continue
	tndx=$(awk -v s="$tsym" '$2 == s {print $1; exit}' <<<"$sects")
	[[ -n $tndx ]] || tndx=$(awk -v s="$tsym" '$8 == s {print $7; exit}' <<<"$syms")
	[[ $tndx =~ ^[0-9]+$ ]] || continue
	[[ $(awk -v i="$tndx" '$1 == i {print $3}' <<<"$sects") == *X* ]] ||
		continue # data: old_name strings
	name=$(awk -v i="$tndx" -v a="$taddr" "$hexfn"'
		$4 == "FUNC" && $7 == i && hex($2) == a {print $8; exit}' <<<"$syms")
	[[ -n $name ]] || die "$funcs points into code at $tsym+$taddr, where no function starts"
	names+=("$name")
done <<<"$targets"
((${#names[@]})) || die "$funcs registers no function"

bad=0
for name in "${names[@]}"; do
	read -r ndx val size < <(awk -v n="$name" \
		'$8 == n && $4 == "FUNC" {print $7, $2, $3; exit}' <<<"$syms")
	sect=$(awk -v i="$ndx" '$1 == i {print $2}' <<<"$sects")
	start=$((16#$val))
	end=$((start + size))
	cold=
	if awk -v n="$name.cold" '$8 == n {f = 1} END {exit !f}' <<<"$syms"; then
		cold=1
	fi
	# objdump -dr prints an instruction, then the relocations that apply to
	# it on lines of their own ("<tabs>OFFSET: R_X86_64_TYPE<tab>SYM+-ADD").
	out=$(objdump -dr --no-show-raw-insn -j "$sect" \
		--start-address="$start" --stop-address="$end" "$ko" |
		awk -v name="$name" -v lo="$start" -v hi="$end" -v sect="$sect" \
			-v cold="$cold" "$hexfn"'
		# target of a PC-relative branch relocated against SYM+-ADD:
		# SYM + ADD + 4, known only when SYM is this section (else -1)
		function reltarget(r,   s, a) {
			s = r; a = 0
			if (match(r, /[-+]0x[0-9a-f]+$/)) {
				s = substr(r, 1, RSTART - 1)
				a = hex(substr(r, RSTART + 1))
				if (substr(r, RSTART, 1) == "-") a = -a
			}
			return s == sect ? a + 4 : -1
		}
		function flush(   m, ops, tgt) {
			if (insn == "") return
			n++
			m = insn
			while (m ~ /^(cs|ds|es|ss|notrack|bnd|data16|addr32) /)
				sub(/^[a-z0-9]+ /, "", m)
			ops = m; sub(/^[^ ]+ ?/, "", ops)
			sub(/ .*/, "", m)
			last = m; lastops = ops; lastrel = rel
			if (m ~ /^(j[a-z]+|loop[a-z]*)$/) {
				if (ops ~ /^\*/) {
					printf "%s: indirect jump at %#x: %s\n", name, addr, insn
					errs++
				} else if (rel ~ /^__x86_return_thunk([-+]|$)/) {
					rets++
				} else if (rel != "") {
					tgt = reltarget(rel)
					if (tgt < lo || tgt >= hi) {
						printf "%s: jumps out at %#x: %s (%s)\n", name, addr, insn, rel
						errs++
					} else jumps++
				} else {
					tgt = hex(ops)
					if (tgt < lo || tgt >= hi) {
						printf "%s: jumps out at %#x: %s\n", name, addr, insn
						errs++
					} else jumps++
				}
			} else if (m ~ /^ret/) {
				rets++
			} else if (m ~ /^call/) {
				calls++
			}
			insn = ""; rel = ""
		}
		/^[ \t]*[0-9a-f]+: R_X86_64_/ {
			if (rel == "") rel = $3
			next
		}
		/^[ \t]*[0-9a-f]+:\t/ {
			flush()
			a = $0; sub(/^[ \t]*/, "", a); sub(/:.*/, "", a)
			addr = hex(a)
			insn = $0; sub(/^[^\t]*\t/, "", insn)
			gsub(/[ \t]+/, " ", insn); sub(/ +$/, "", insn)
		}
		END {
			flush()
			if (cold) {
				printf "%s: has a %s.cold part (hot/cold splitting)\n", name, name
				errs++
			}
			# nothing may fall into whatever follows the function
			if (last ~ /^(ret|jmp|ud2|int3)/)
				stop = last (lastrel != "" ? " " lastrel : lastops != "" ? " " lastops : "")
			else if (last ~ /^call/ && lastrel ~ /^(__stack_chk_fail|__ubsan_handle_[a-z_]*abort|panic|do_exit|BUG_func)[-+]/)
				stop = "call " lastrel
			if (stop == "") {
				printf "%s: falls through its end into the next symbol (last: %s %s)\n", name, last, lastrel != "" ? lastrel : lastops
				errs++
			}
			sub(/-0x4$/, "", stop)
			printf "SUMMARY %d %d %d %d %d %s\n", n, jumps, rets, calls, errs, stop
		}')
	sed '/^SUMMARY /d; s/^/'"$prog: $mod: "'/' <<<"$out"
	read -r n jumps rets calls errs stop <<<"$(sed -n 's/^SUMMARY //p' <<<"$out")"
	if ((errs)); then
		bad=1
		continue
	fi
	printf -v off "%#x" "$start"
	echo "$prog: $mod: $name: $sect+$off, $size bytes, $n instructions: $jumps jumps all inside, $rets returns, $calls calls, ends with $stop: ok"
done
exit $bad
