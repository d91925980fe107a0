# SPDX-License-Identifier: GPL-2.0
#
# bhscope: eBPF tracing of the buffer-head LRU and jbd2 commit batching.
#
#   make            build build/bhscope and build/bhbench
#   make demo       RAM-backed ext4, a workload, live tracing, the report
#   make check      every test this machine can run (unit, live, VM bench)
#   make bench      overhead vs bpftrace and untraced runs, jbd2 here, LRU in
#                   a VM guest (~30 min; BENCH_SMOKE=1: a few; bench/)
#   make fuzz       run each libFuzzer target for FUZZ_S seconds (default 60;
#                   tests/fuzz/, tests/fuzz/run.sh)
#   make deps       install the Debian packages the above need
#   make install    PREFIX=/usr DESTDIR=...: binaries, man pages, completion,
#                   the systemd unit, dashboards
#   make deb        build/deb/*.deb: bhscope and bhtune-dkms (debian/)
#   make static     build/static/bhscope, every library linked in
#   make V=1 ...    show the full commands

OUTPUT		?= build
PREFIX		?= /usr/local
DESTDIR		?=
SYSCONFDIR	?= /etc
UNITDIR		?= $(PREFIX)/lib/systemd/system
ARCH		:= x86
VERSION		:= 0.1

# Debian's clang-19 when present: it knows every BTF/CO-RE feature we use.
CLANG		?= $(or $(shell command -v clang-19 2>/dev/null),clang)
BPFTOOL		?= $(or $(shell command -v bpftool 2>/dev/null),/usr/sbin/bpftool)
CC		?= gcc
VMLINUX_H	:= vmlinux/$(ARCH)/vmlinux.h
VMLINUX_BTF	?= /sys/kernel/btf/vmlinux

CFLAGS		?= -O2 -g
CFLAGS		+= -std=gnu11 -Wall -Wextra -Werror -Iinclude -Iuser -I$(OUTPUT) \
		   -D_GNU_SOURCE -DBHSCOPE_VERSION=\"$(VERSION)\"
BPF_CFLAGS	:= -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
		   -Iinclude -Ibpf -Ivmlinux/$(ARCH)
LDLIBS_BPF	:= -lbpf -lelf -lz
LDLIBS		:= $(LDLIBS_BPF) -ljson-c -lmicrohttpd -lzstd -lm -lpthread
# check's build, on every core: the VM bench waits for it
NPROC		:= $(shell nproc 2>/dev/null || echo 1)

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

BPF_SRCS	:= $(wildcard bpf/*.bpf.c)
BPF_OBJS	:= $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(BPF_SRCS))
SKELS		:= $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))
# user/*_cmd.c and main.c are the commands; user/<domain>/ the library.
CMD_SRCS	:= $(wildcard user/*.c)
LIB_SRCS	:= $(wildcard user/*/*.c)
CMD_OBJS	:= $(patsubst %.c,$(OUTPUT)/%.o,$(CMD_SRCS))
LIB_OBJS	:= $(patsubst %.c,$(OUTPUT)/%.o,$(LIB_SRCS))
# The modules that need libbpf or libmicrohttpd, themselves or through
# another, say so in their names: *bpf*.c (bpf_on_cpus.c, lru_kernel_bpf.c,
# serve_lru_bpf.c), *_http.c, a tracer's session (*_session.c, *_load.c,
# *_attach.c, *_maps.c) and the engines that run tracers (*_run.c). The
# rest (pure code over plain data) is libbhscope-core.a, which the unit
# tests link alone; core-links-alone proves the names right.
KERNEL_SRCS	:= $(wildcard $(foreach p,*bpf*.c *_http.c *_session.c *_load.c \
		   *_attach.c *_maps.c *_run.c,user/*/$(p)))
KERNEL_OBJS	:= $(patsubst %.c,$(OUTPUT)/%.o,$(KERNEL_SRCS))
CORE_OBJS	:= $(filter-out $(KERNEL_OBJS),$(LIB_OBJS))
CORE_LIB	:= $(OUTPUT)/libbhscope-core.a
BENCH_SRCS	:= $(wildcard bhbench/*.c)
# build/bhbench is the binary: its objects go beside it, in bhbench-objs/.
BENCH_OBJS	:= $(patsubst bhbench/%.c,$(OUTPUT)/bhbench-objs/%.o,$(BENCH_SRCS))
UNIT_SRCS	:= $(wildcard tests/unit/test_*.c)
UNIT_BINS	:= $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(UNIT_SRCS))
# man/NAME.SECTION.scd -> build/man/NAME.SECTION (scdoc)
MAN_SRCS	:= $(wildcard man/*.scd)
MAN_PAGES	:= $(patsubst man/%.scd,$(OUTPUT)/man/%,$(MAN_SRCS))
# Every object records the headers it included (-MMD -MP): a header change
# rebuilds exactly its users.
DEPFLAGS	= -MMD -MP -MF $(@:.o=.d)
# A program compiled and linked in one step lists its own source in its
# dependency file, which -MP does not cover: once that source moves, the
# stale file stops make ("No rule to make target"). An empty rule for it,
# as -MP writes for headers.
dep_source	= echo '$<:' >> $@.d

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all check demo deps clean install unit vmlinux bench seeds man deb static \
	fuzz fuzz-build

all: $(OUTPUT)/bhscope $(OUTPUT)/bhbench $(OUTPUT)/lrutrace $(OUTPUT)/lrutrace-pump \
	$(OUTPUT)/bench-floor

# The LRU probe runs on every buffer-head lookup: 32-bit ALU ops and jumps
# (BPF ISA v3, kernels 5.1+) spare it the shifts that zero-extend each u32.
# A clang that has v4 (17+) also stores a constant in one instruction
# (BPF_ST, which every kernel takes): v4 with the instructions of 6.6+
# turned off.
BPF_V4_OFF	:= $(foreach f,ldsx movsx bswap sdiv-smod gotol,-mllvm -disable-$(f))
BPF_LRU_CPU	= $(shell $(CLANG) -target bpf -mcpu=v4 $(BPF_V4_OFF) -x c -c \
			/dev/null -o /dev/null 2>/dev/null && \
			echo '-mcpu=v4 $(BPF_V4_OFF)' || echo -mcpu=v3)
$(OUTPUT)/lru.bpf.o: BPF_CFLAGS += $(BPF_LRU_CPU)

$(OUTPUT)/%.bpf.o: bpf/%.bpf.c $(VMLINUX_H)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -MF $@.d -c $< -o $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# The skeletons exist before any C file is compiled (a first build has no
# dependency files yet to say which file includes which).
$(OUTPUT)/user/%.o: user/%.c | $(SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(CORE_LIB): $(CORE_OBJS) Makefile
	$(call msg,AR,$@)
	$(Q)rm -f $@
	$(Q)$(AR) rcs $@ $(CORE_OBJS)

# Proof that the core needs neither libbpf nor libmicrohttpd: every object
# in it links with the C library, json-c and libzstd alone.
$(OUTPUT)/core-links-alone: $(CORE_LIB)
	$(call msg,CHECK,$@)
	$(Q)echo 'int main(void) { return 0; }' | $(CC) -x c - -x none -Wl,--whole-archive \
		$(CORE_LIB) -Wl,--no-whole-archive -ljson-c -lzstd -lm -lpthread -o $@

$(OUTPUT)/bhscope: $(CMD_OBJS) $(KERNEL_OBJS) $(CORE_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(OUTPUT)/bhbench-objs/%.o: bhbench/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

# bhbench shares two modules of the library: its options for completion,
# and write_all().
$(OUTPUT)/bhbench: $(BENCH_OBJS) $(OUTPUT)/user/lib/argp_words.o \
		$(OUTPUT)/user/lib/write_all.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ -ljson-c -lpthread -lm -o $@

# Trace files for the bench and the tests (tests/lrutrace/lrutrace.c).
$(OUTPUT)/lrutrace: tests/lrutrace/lrutrace.c $(CORE_LIB)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -MF $@.d $< $(CORE_LIB) -ljson-c -lzstd -lm -o $@
	$(Q)$(dep_source)

# Empty programs at a hook, for make bench's floors (bench/floor.c).
$(OUTPUT)/bench-floor.bpf.o: bench/floor.bpf.c $(VMLINUX_H)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -MF $@.d -c $< -o $@

$(OUTPUT)/bench-floor: bench/floor.c $(OUTPUT)/bench-floor.skel.h $(CORE_LIB)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -MF $@.d $< $(CORE_LIB) $(LDLIBS_BPF) -o $@
	$(Q)$(dep_source)

# The --trace writer at a set lookup rate (tests/lrutrace/pump.c).
$(OUTPUT)/lrutrace-pump.bpf.o: tests/lrutrace/pump.bpf.c $(VMLINUX_H)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -MF $@.d -c $< -o $@

$(OUTPUT)/lrutrace-pump: tests/lrutrace/pump.c $(OUTPUT)/lrutrace-pump.skel.h \
		$(OUTPUT)/user/lrutrace/lru_recorder_bpf.o $(CORE_LIB)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -MF $@.d $< $(OUTPUT)/user/lrutrace/lru_recorder_bpf.o \
		$(CORE_LIB) $(LDLIBS_BPF) -ljson-c -lzstd -lm -lpthread -o $@
	$(Q)$(dep_source)

$(OUTPUT)/tests/%: tests/unit/%.c $(CORE_LIB)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -MF $@.d $< $(CORE_LIB) -lcmocka -ljson-c -lzstd -lm -lpthread -o $@
	$(Q)$(dep_source)

unit: $(UNIT_BINS) $(OUTPUT)/core-links-alone

$(OUTPUT)/man/%: man/%.scd
	$(call msg,SCDOC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)scdoc < $< > $@

man: $(MAN_PAGES)

# libFuzzer targets (tests/fuzz/fuzz_*.c) and the unit tests again, built
# with clang and AddressSanitizer + UBSan from the sources of
# libbhscope-core.a (its normal objects have no sanitizers). The HTTP
# target adds serve_http.c and libmicrohttpd.
FUZZ_DIR	:= $(OUTPUT)/fuzz
FUZZ_S		?= 60
FUZZ_SAN	:= -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS	:= -g -O1 -fno-omit-frame-pointer -std=gnu11 -Wall -Wextra -Werror \
		   -Iinclude -Iuser -D_GNU_SOURCE -DBHSCOPE_VERSION=\"$(VERSION)\"
FUZZ_CORE_OBJS	:= $(patsubst $(OUTPUT)/%.o,$(FUZZ_DIR)/obj/%.o,$(CORE_OBJS))
FUZZ_CORE_LIB	:= $(FUZZ_DIR)/libbhscope-core.a
FUZZ_SRCS	:= $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS	:= $(patsubst tests/fuzz/%.c,$(FUZZ_DIR)/%,$(FUZZ_SRCS))
FUZZ_UNIT_BINS	:= $(patsubst tests/unit/%.c,$(FUZZ_DIR)/tests/%,$(UNIT_SRCS))
FUZZ_EXTRA_fuzz_http := $(FUZZ_DIR)/obj/user/serve/serve_http.o -lmicrohttpd

$(FUZZ_DIR)/obj/%.o: %.c
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(FUZZ_SAN) $(DEPFLAGS) -c $< -o $@

$(FUZZ_CORE_LIB): $(FUZZ_CORE_OBJS) Makefile
	$(call msg,AR,$@)
	$(Q)rm -f $@
	$(Q)$(AR) rcs $@ $(FUZZ_CORE_OBJS)

$(FUZZ_DIR)/fuzz_http: $(FUZZ_DIR)/obj/user/serve/serve_http.o

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_CORE_LIB)
	$(call msg,LINK,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(FUZZ_SAN) -MMD -MP -MF $@.d $< \
		$(FUZZ_EXTRA_fuzz_$*) $(FUZZ_CORE_LIB) -ljson-c -lzstd -lm -lpthread -o $@
	$(Q)$(dep_source)

$(FUZZ_DIR)/tests/%: tests/unit/%.c $(FUZZ_CORE_LIB)
	$(call msg,CC-SAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $(FUZZ_SAN) -MMD -MP -MF $@.d $< $(FUZZ_CORE_LIB) \
		-lcmocka -ljson-c -lzstd -lm -lpthread -o $@
	$(Q)$(dep_source)

fuzz-build: $(FUZZ_BINS) $(FUZZ_UNIT_BINS)

# Each target for FUZZ_S seconds; a crash is kept in tests/fuzz/TARGET/.
fuzz: deps
	$(Q)$(MAKE) --no-print-directory fuzz-build
	$(Q)tests/fuzz/run.sh $(FUZZ_S)

# vmlinux.h for CO-RE, from a named BTF file (default: the running kernel).
vmlinux:
	$(call msg,GEN,$(VMLINUX_H))
	$(Q)scripts/gen-vmlinux-h.sh $(VMLINUX_BTF) > $(VMLINUX_H).tmp
	$(Q)mv $(VMLINUX_H).tmp $(VMLINUX_H)

deps:
	$(Q)scripts/deps.sh scripts/deps.txt

check: deps
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) all unit fuzz-build
	$(Q)tests/run-all.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)scripts/demo.sh

# Overhead, side by side with bpftrace and untraced runs (noisy: not in check).
bench: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)bench/run.sh

# The seed threads' tables, reproduced in a guest counting instructions.
seeds: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)bench/seeds/run.sh

install: all man
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -D -m 0755 $(OUTPUT)/bhscope $(DESTDIR)$(PREFIX)/sbin/bhscope
	$(Q)install -D -m 0755 $(OUTPUT)/bhbench $(DESTDIR)$(PREFIX)/bin/bhbench
	$(Q)for m in $(MAN_PAGES); do \
		install -D -m 0644 $$m $(DESTDIR)$(PREFIX)/share/man/man$${m##*.}/$${m##*/} || exit 1; done
	$(Q)for c in bhscope bhbench; do install -D -m 0644 completion/bhscope \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$c || exit 1; done
	$(Q)install -d $(DESTDIR)$(PREFIX)/libexec/bhscope
	$(Q)sed 's|/usr/sbin/|$(PREFIX)/sbin/|' systemd/bhscope-tracefs \
		> $(DESTDIR)$(PREFIX)/libexec/bhscope/bhscope-tracefs
	$(Q)chmod 0755 $(DESTDIR)$(PREFIX)/libexec/bhscope/bhscope-tracefs
	$(Q)install -d $(DESTDIR)$(UNITDIR)
	$(Q)sed 's|/usr/sbin/|$(PREFIX)/sbin/|; s|/usr/libexec/|$(PREFIX)/libexec/|' \
		systemd/bhscope.service > $(DESTDIR)$(UNITDIR)/bhscope.service
	$(Q)install -D -m 0644 systemd/bhscope.default $(DESTDIR)$(SYSCONFDIR)/default/bhscope
	$(Q)install -D -m 0644 -t $(DESTDIR)$(PREFIX)/share/bhscope/grafana contrib/grafana/*.json
	$(Q)install -D -m 0644 -t $(DESTDIR)$(PREFIX)/share/bhscope/prometheus \
		contrib/prometheus/*.rules.yml contrib/prometheus/*.rules.test.yml
	$(Q)install -D -m 0644 -t $(DESTDIR)$(PREFIX)/share/doc/bhscope/examples contrib/serve.conf

# One bhscope with libbpf, libelf, zlib, zstd, json-c and libmicrohttpd
# linked in, for hosts of other distributions. libmicrohttpd comes from
# Debian's source without HTTPS (scripts/microhttpd-static.sh says why). glibc
# is static too: --listen takes numeric addresses there (no NSS).
STATIC_MHD	:= $(OUTPUT)/static/microhttpd

$(STATIC_MHD)/lib/libmicrohttpd.a:
	$(call msg,BUILD,$@)
	$(Q)scripts/microhttpd-static.sh $(STATIC_MHD)

$(OUTPUT)/static/bhscope: $(CMD_OBJS) $(KERNEL_OBJS) $(CORE_LIB) $(STATIC_MHD)/lib/libmicrohttpd.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -static -Wl,--no-warnings $(CMD_OBJS) $(KERNEL_OBJS) $(CORE_LIB) \
		-L$(STATIC_MHD)/lib $(LDLIBS_BPF) -lzstd -ljson-c -lmicrohttpd -lm -lpthread -o $@

static: $(OUTPUT)/static/bhscope

# The packages are built from a copy of the tracked files, so that the
# .debs land in build/deb and the tree stays as it is.
deb:
	$(call msg,DEB,$(OUTPUT)/deb)
	$(Q)rm -rf $(OUTPUT)/deb && mkdir -p $(OUTPUT)/deb/src
	$(Q)git ls-files -z -co --exclude-standard | xargs -0 sh -c 'for f; do \
		if [ -e "$$f" ] || [ -L "$$f" ]; then cp -P --parents "$$f" "$$0" || exit 1; fi; \
		done' $(abspath $(OUTPUT))/deb/src
	$(Q)cd $(OUTPUT)/deb/src && dpkg-buildpackage -b -us -uc > ../build.log 2>&1 || \
		{ tail -n 40 ../build.log; echo "bhscope: dpkg-buildpackage failed; log in $(OUTPUT)/deb/build.log" >&2; exit 1; }
	$(Q)ls $(OUTPUT)/deb/*.deb

clean:
	$(call msg,CLEAN,$(OUTPUT))
	$(Q)rm -rf $(OUTPUT)

-include tests/vm/harness/vm.mk

-include $(shell find $(OUTPUT) -path $(OUTPUT)/deb -prune -o -name '*.d' -type f -print 2>/dev/null)
