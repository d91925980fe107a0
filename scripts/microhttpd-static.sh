#!/usr/bin/env bash
# Builds a static libmicrohttpd without HTTPS into OUT (OUT/lib, OUT/include)
# for `make static`, from Debian's own source package of the installed
# libmicrohttpd-dev (same version, Debian's patches). Debian's
# libmicrohttpd.a needs gnutls, and gnutls needs p11-kit, which Debian ships
# as a shared library only; bhscope serves plain HTTP, so HTTPS goes.
# The source comes with apt-get source through a private, authenticated
# deb-src list kept in the cache; nothing on the system changes.
set -euo pipefail
out=${1:?usage: microhttpd-static.sh OUTDIR}
out=$(realpath -m "$out")
cache=${BHSCOPE_CACHE:-/var/cache/bhscope}/src
version=$(dpkg-query -W -f='${source:Version}' libmicrohttpd-dev 2> /dev/null) || {
	echo "bhscope: libmicrohttpd-dev is not installed (make deps)" >&2
	exit 1
}
[[ -f $out/lib/libmicrohttpd.a && $(cat "$out/version" 2> /dev/null) == "$version" ]] && exit 0

apt_dir=$cache/apt
mkdir -p "$apt_dir/parts" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
apt=(apt-get -q -o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$apt_dir/parts"
	-o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
	-o APT::Sandbox::User=root)
log=$(mktemp /tmp/bhscope-mhd.XXXXXX)
trap 'rm -f "$log"' EXIT
# quiet CMD...: the command's output only when it fails.
quiet() {
	"$@" > "$log" 2>&1 || {
		echo "bhscope: $* failed:" >&2
		tail -n 20 "$log" >&2
		exit 1
	}
}

dsc=$cache/libmicrohttpd_${version#*:}.dsc
if [[ ! -f $dsc ]]; then
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -f $f ]] && sed 's/^Types: deb$/Types: deb-src/' "$f" > "$apt_dir/parts/${f##*/}"
	done
	if [[ -f /etc/apt/sources.list ]]; then
		sed -n 's/^deb /deb-src /p' /etc/apt/sources.list > "$apt_dir/parts/sources.list"
	fi
	quiet "${apt[@]}" update
	(cd "$cache" && quiet "${apt[@]}" source --download-only "libmicrohttpd=$version")
fi

src=$(mktemp -d /tmp/bhscope-mhd-src.XXXXXX)
trap 'rm -f "$log"; rm -rf "$src"' EXIT
quiet dpkg-source -x "$dsc" "$src/libmicrohttpd"
cd "$src/libmicrohttpd"
quiet ./configure --prefix="$out" --disable-https --without-gnutls --enable-static \
	--disable-shared --disable-doc --disable-examples --disable-curl --disable-nls
quiet make -j"$(nproc)" -C src/microhttpd
rm -rf "$out"
quiet make -C src/microhttpd install
quiet make -C src/include install
echo "$version" > "$out/version"
