#!/usr/bin/env bash
# make install ships what an operator copies from (issue 33 item 10): the
# serve configuration example (share/doc/bhscope/examples/serve.conf),
# which bhscope serve reads as it is, and the Prometheus rules' tests
# beside the rules, where `promtool test rules` runs them as installed;
# both completions. debian/bhscope.install takes each into the package.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib/common.sh
command -v scdoc > /dev/null || skip_all "scdoc is not installed (make deps)"
dest=$(mktemp -d /tmp/bhscope-install.XXXXXX)
on_exit "rm -rf '$dest'"
make -s --no-print-directory install PREFIX=/usr DESTDIR="$dest" > /dev/null

for f in usr/share/doc/bhscope/examples/serve.conf \
	usr/share/bhscope/prometheus/bhscope.rules.yml \
	usr/share/bhscope/prometheus/bhscope.rules.test.yml \
	usr/share/bash-completion/completions/bhscope \
	usr/share/bash-completion/completions/bhbench; do
	check "installs_${f##*/}" test -s "$dest/$f"
	# the package takes what make install puts there
	covered=no
	while read -r p; do
		[[ $f == "$p" || $f == "$p"/* ]] && covered=yes
	done < debian/bhscope.install
	check "packaged_${f##*/}" test "$covered" = yes
done
if command -v promtool > /dev/null; then
	check installed_rules_tests_pass promtool test rules \
		"$dest/usr/share/bhscope/prometheus/bhscope.rules.test.yml"
else
	echo "SKIP: $TEST_NAME/installed_rules_tests_pass: promtool is not installed"
fi
finish
