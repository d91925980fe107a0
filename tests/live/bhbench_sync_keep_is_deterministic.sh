#!/usr/bin/env bash
# bhbench sync --keep leaves -n x -t files of -s bytes, named t<task>.f<index>,
# and two runs write byte-identical files: the content is deterministic.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
# shellcheck source=../lib/bhbench.sh
source "$(dirname "$0")/../lib/bhbench.sh"
need_bhbench
fs_setup ""

mkdir "$MNT/a" "$MNT/b"
"$BHBENCH" sync -D "$MNT/a" -n 25 -t 2 -s 3000 --keep -q || fail "run a: exit $?"
"$BHBENCH" sync -D "$MNT/b" -n 25 -t 2 -s 3000 --keep -q || fail "run b: exit $?"
a=$(echo "$MNT"/a/bhbench.*)
b=$(echo "$MNT"/b/bhbench.*)
[[ -d $a && -d $b ]] || fail "--keep left no bhbench.<pid> directory"
n=$(find "$a" -type f -name 't[01].f*' -size 3000c | wc -l)
[[ $n -eq 50 ]] || fail "want 50 files of 3000 bytes, found $n"
[[ -f $a/d1/t1.f24 ]] || fail "no $a/d1/t1.f24"
diff -r "$a" "$b" > /dev/null || fail "two runs wrote different content"
cmp -s "$a/d0/t0.f0" "$a/d0/t0.f1" && fail "t0.f0 and t0.f1 have the same content"
pass
