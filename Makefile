# SPDX-License-Identifier: GPL-2.0
#
# bhscope: eBPF tracing of the buffer-head LRU and jbd2 commit batching.
#
#   make            build build/bhscope and build/bhbench
#   make demo       RAM-backed ext4, a workload, live tracing, the report
#   make check      every test this machine can run (unit, live, VM bench)
#   make bench      overhead vs bpftrace and untraced runs, jbd2 here, LRU in
#                   a VM guest (~30 min; BENCH_SMOKE=1: a few; tools/bench/)
#   make deps       install the Debian packages the above need
#   make V=1 ...    show the full commands

OUTPUT		?= build
PREFIX		?= /usr/local
DESTDIR		?=
ARCH		:= x86
VERSION		:= 0.1

# Debian's clang-19 when present: it knows every BTF/CO-RE feature we use.
CLANG		?= $(or $(shell command -v clang-19 2>/dev/null),clang)
BPFTOOL		?= $(or $(shell command -v bpftool 2>/dev/null),/usr/sbin/bpftool)
CC		?= gcc
VMLINUX_H	:= vmlinux/$(ARCH)/vmlinux.h
VMLINUX_BTF	?= /sys/kernel/btf/vmlinux

CFLAGS		?= -O2 -g
CFLAGS		+= -std=gnu11 -Wall -Wextra -Werror -Iinclude -I$(OUTPUT) \
		   -D_GNU_SOURCE -DBHSCOPE_VERSION=\"$(VERSION)\"
BPF_CFLAGS	:= -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
		   -Iinclude -Ivmlinux/$(ARCH)
LDLIBS_BPF	:= -lbpf -lelf -lz
LDLIBS		:= $(LDLIBS_BPF) -ljson-c -lmicrohttpd -lm -lpthread

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
USER_SRCS	:= $(wildcard user/*.c)
USER_OBJS	:= $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(USER_SRCS))
LIB_OBJS	:= $(filter-out $(OUTPUT)/user/main.o,$(USER_OBJS))
BENCH_SRCS	:= $(wildcard tools/bhbench/*.c)
BENCH_OBJS	:= $(patsubst tools/bhbench/%.c,$(OUTPUT)/tools/bhbench/%.o,$(BENCH_SRCS))
UNIT_SRCS	:= $(wildcard tests/unit/test_*.c)
UNIT_BINS	:= $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(UNIT_SRCS))

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all check demo deps clean install unit vmlinux bench

all: $(OUTPUT)/bhscope $(OUTPUT)/bhbench

$(OUTPUT) $(OUTPUT)/user $(OUTPUT)/tools/bhbench $(OUTPUT)/tests:
	$(Q)mkdir -p $@

$(OUTPUT)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h include/*.h) $(VMLINUX_H) | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(OUTPUT)/user/%.o: user/%.c $(wildcard user/*.h include/*.h) $(SKELS) | $(OUTPUT)/user
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(OUTPUT)/bhscope: $(USER_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

$(OUTPUT)/tools/bhbench/%.o: tools/bhbench/%.c $(wildcard tools/bhbench/*.h) | $(OUTPUT)/tools/bhbench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(OUTPUT)/bhbench: $(BENCH_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ -ljson-c -lpthread -lm -o $@

$(OUTPUT)/tests/%: tests/unit/%.c $(LIB_OBJS) | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Iuser $< $(LIB_OBJS) -lcmocka $(LDLIBS) -o $@

unit: $(UNIT_BINS)

# vmlinux.h for CO-RE, from a named BTF file (default: the running kernel).
vmlinux:
	$(call msg,GEN,$(VMLINUX_H))
	$(Q)tools/gen-vmlinux-h.sh $(VMLINUX_BTF) > $(VMLINUX_H).tmp
	$(Q)mv $(VMLINUX_H).tmp $(VMLINUX_H)

deps:
	$(Q)tools/deps.sh tools/deps.txt

check: deps
	$(Q)$(MAKE) --no-print-directory all unit
	$(Q)tests/run-all.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/demo.sh

# Overhead, side by side with bpftrace and untraced runs (noisy: not in check).
bench: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/bench/run.sh

install: all
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX)/sbin)
	$(Q)install -d $(DESTDIR)$(PREFIX)/sbin
	$(Q)install -m 0755 $(OUTPUT)/bhscope $(OUTPUT)/bhbench $(DESTDIR)$(PREFIX)/sbin/

clean:
	$(call msg,CLEAN,$(OUTPUT))
	$(Q)rm -rf $(OUTPUT)

-include tools/vm/vm.mk
