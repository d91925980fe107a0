#!/bin/bash
# kernel-fetch.sh SERIES — fetch a Debian kernel (image with modules, headers,
# kbuild) into the bhscope cache and print where its parts are.
#
#   SERIES   6.1 or 6.12 (any Debian bookworm series named like them works),
#            or SERIES-FLAVOUR for another flavour than the generic amd64:
#            6.1-cloud is linux-image-6.1.0-NN-cloud-amd64-unsigned (ext4 and
#            jbd2 built in, no 9p: the VM bench shares the root over virtiofs)
#
# stdout: KEY=value lines (ABI, PKGVER, KVER, VMLINUZ, MODDIR, KDIR, SYSTEMMAP),
# safe for `eval "$(tests/vm/harness/kernel-fetch.sh 6.1)"`. Progress goes to stderr.
#
# The ABI (6.1.0-57, 6.12.117+deb12, ...) is resolved from the local package
# index every time, never hard-coded, so a Debian update moves us to the new
# kernel. A warm cache for that ABI does no downloads at all.
#
# Env: BHSCOPE_CACHE (default /var/cache/bhscope) — cache root, outside the
#      checkout so fresh clones and CI runs share it.
set -euo pipefail

prog=kernel-fetch
die() { echo "$prog: $*" >&2; exit 1; }
log() { echo "$prog: $*" >&2; }

[[ $# -eq 1 ]] || die "usage: $0 SERIES   (e.g. 6.1, 6.12 or 6.1-cloud)"
name=$1
[[ $name =~ ^([0-9]+\.[0-9]+)(-([a-z]+))?$ ]] ||
	die "bad series '$name' (want e.g. 6.1, 6.12 or 6.1-cloud)"
series=${BASH_REMATCH[1]}
# the package suffix: amd64, or cloud-amd64 and the like
flavour=${BASH_REMATCH[3]:+${BASH_REMATCH[3]}-}amd64

cache=${BHSCOPE_CACHE:-/var/cache/bhscope}

# Newest ABI of the series among the -unsigned amd64 images in the index.
# 6.1 names look like linux-image-6.1.0-57-amd64-unsigned, 6.12 like
# linux-image-6.12.117+deb12-amd64-unsigned; sort -V orders both correctly.
resolve_abi() {
	local re="^linux-image-(${series//./\\.}(\\.0-[0-9]+|\\.[0-9]+\\+deb[0-9]+))-$flavour-unsigned\$"
	apt-cache pkgnames "linux-image-$series." | grep -E "$re" |
		sed -E "s/$re/\\1/" | sort -V | tail -n1
}

abi=$(resolve_abi || true) # grep finds nothing: say so below
[[ -n $abi ]] || die "no linux-image-${series}.*-$flavour-unsigned in the package index; run 'apt-get update'"
kver=$abi-$flavour
image=linux-image-$kver-unsigned

# one tree per ABI and flavour (6.1.0-57 and 6.1.0-57-cloud)
dir=$cache/kernels/$abi
[[ $flavour == amd64 ]] || dir+=-${flavour%-amd64}
root=$dir/root
envfile=$dir/env
mkdir -p "$dir"

# One fetch per ABI at a time: other engineers' builds call us in parallel.
exec 9>"$dir/.lock"
flock 9

if [[ -s $envfile && -d $root ]]; then
	cat "$envfile"
	exit 0
fi

pkgver=$(apt-cache show "$image" | awk '/^Version:/ {print $2}' | sort -V | tail -n1)
[[ -n $pkgver ]] || die "cannot read the version of $image"

# Headers and kbuild names come from the headers package's Depends line,
# e.g. linux-headers-6.1.0-57-common and linux-kbuild-6.1 (same version).
headers=linux-headers-$kver
deps=$(apt-cache show "$headers=$pkgver" | awk '/^Depends:/ {sub(/^Depends: /, ""); print; exit}')
[[ -n $deps ]] || die "cannot read Depends of $headers=$pkgver"
mapfile -t extra < <(tr ',|' '\n' <<<"$deps" | awk '{print $1}' |
	grep -E '^linux-(headers-.*-common(-rt)?|kbuild-.*)$' | sort -u)
((${#extra[@]} == 2)) || die "expected a -common and a kbuild package in Depends of $headers: $deps"
pkgs=("$image" "$headers" "${extra[@]}")

debs=$dir/debs
mkdir -p "$debs"

# Size and SHA256 of pkg=ver as the index says; a truncated or corrupt
# download fails here instead of at extraction or, worse, at boot.
deb_ok() {
	local pkg=$1 f=$2 want_size want_sha
	[[ -f $f ]] || return 1
	read -r want_size want_sha < <(apt-cache show "$pkg=$pkgver" |
		awk '/^Size:/ {s=$2} /^SHA256:/ {h=$2} END {print s, h}')
	[[ -n $want_size && -n $want_sha ]] || die "no Size/SHA256 for $pkg=$pkgver in the index"
	[[ $(stat -c %s "$f") == "$want_size" ]] || { log "$f: size mismatch"; return 1; }
	[[ $(sha256sum "$f" | awk '{print $1}') == "$want_sha" ]] || { log "$f: sha256 mismatch"; return 1; }
	dpkg-deb --info "$f" >/dev/null || { log "$f: not a valid .deb"; return 1; }
}

deb_path() { # apt-get download names files pkg_version_arch.deb, with ':' as %3a
	local f
	for f in "$debs/$1"_*.deb; do
		[[ -e $f ]] && { echo "$f"; return 0; }
	done
	return 0
}

# Only the apt-get time counts as download time: the first run reports it
# on its own line, apart from verification and extraction.
dl_time=0 dl_bytes=0 fetched=0
for pkg in "${pkgs[@]}"; do
	f=$(deb_path "$pkg")
	if [[ -n $f ]] && deb_ok "$pkg" "$f"; then
		continue
	fi
	[[ -n $f ]] && rm -f "$f"
	log "downloading $pkg=$pkgver"
	t0=$(date +%s.%N)
	# Sandbox user root: _apt cannot write into a root-owned cache dir.
	(cd "$debs" && apt-get -q -o APT::Sandbox::User=root download "$pkg=$pkgver" >&2) ||
		die "apt-get download $pkg=$pkgver failed"
	dl_time=$(awk -v a="$t0" -v b="$(date +%s.%N)" -v t="$dl_time" 'BEGIN {print t + b - a}')
	f=$(deb_path "$pkg")
	if [[ -z $f ]] || ! deb_ok "$pkg" "$f"; then
		die "download of $pkg=$pkgver did not verify"
	fi
	dl_bytes=$((dl_bytes + $(stat -c %s "$f")))
	fetched=$((fetched + 1))
done
if ((fetched)); then
	log "$(awk -v n="$fetched" -v b="$dl_bytes" -v t="$dl_time" \
		'BEGIN {printf "download time: %.1f s for %d package(s), %.0f MB", t, n, b / 1e6}')"
fi

# Extract into a fresh tree and move it into place only when complete, so an
# interrupted run never leaves a half tree that looks valid.
tmp=$dir/root.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
for pkg in "${pkgs[@]}"; do
	dpkg-deb -x "$(deb_path "$pkg")" "$tmp"
done

# The packages assume they are installed at /: absolute symlinks
# (lib/modules/KVER/build -> /usr/src/linux-headers-KVER) and the headers
# Makefile's 'include /usr/src/linux-headers-ABI-common/Makefile'. Point them
# inside the cache so nothing is installed on the host.
while IFS= read -r -d '' link; do
	target=$(readlink "$link")
	if [[ -e $tmp$target || -L $tmp$target ]]; then
		ln -sfn "$(realpath -sm --relative-to="$(dirname "$link")" "$tmp$target")" "$link"
	fi
done < <(find "$tmp" -type l -lname '/*' -print0)
mk=$tmp/usr/src/linux-headers-$kver/Makefile
[[ -f $mk ]] || die "$mk missing from $headers"
sed -i -E "s#^include /usr/src/#include $root/usr/src/#" "$mk"

[[ -f $tmp/boot/vmlinuz-$kver ]] || die "boot/vmlinuz-$kver missing from $image"
[[ -d $tmp/lib/modules/$kver/kernel ]] || die "lib/modules/$kver missing from $image"

# modules.dep is made by the postinst we do not run; modprobe in the guest
# needs it. depmod reads .ko.xz itself.
depmod -b "$tmp" "$kver"

rm -rf "$root"
mv "$tmp" "$root"

cat >"$envfile.tmp" <<EOF
SERIES=$name
ABI=$abi
PKGVER=$pkgver
KVER=$kver
VMLINUZ=$root/boot/vmlinuz-$kver
SYSTEMMAP=$root/boot/System.map-$kver
MODDIR=$root/lib/modules/$kver
KDIR=$root/usr/src/linux-headers-$kver
EOF
mv "$envfile.tmp" "$envfile"
cat "$envfile"
