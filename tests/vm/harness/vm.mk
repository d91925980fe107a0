# tests/vm/harness/vm.mk — the VM bench's make targets; the top-level Makefile
# includes it. Also usable alone: make -f tests/vm/harness/vm.mk vmcheck
#
#   make vmcheck              boot each VM_KERNELS kernel, run tests/vm/*.sh
#   make vmshell KERNEL=6.1   the same guest with an interactive shell
#   make vmfetch              only download/extract the kernels (cache)
#   make vmlint               shellcheck the bench and the guest tests
#
# Variables (environment or make command line), see tests/vm/harness/README.md:
# VM_GUESTS VM_KERNELS VM_VARIANTS VM_JOBS VM_CPUS VM_MEM VM_SMP_LIST VM_TIMEOUT VM_IDLE_TIMEOUT
# VM_TEST_TIMEOUT VM_TESTS VM_SUITE VM_MODULES BHSCOPE_CACHE KERNEL
# VM_TCG_THREAD VM_ICOUNT VM_APPEND VM_LRU_DEFERRED

KERNEL		?= 6.1
export VM_GUESTS VM_KERNELS VM_VARIANTS VM_JOBS VM_CPUS VM_MEM VM_SMP_LIST VM_TIMEOUT VM_IDLE_TIMEOUT VM_SUITE \
	VM_TEST_TIMEOUT VM_TESTS VM_MODULES BHSCOPE_CACHE VM_TCG_THREAD VM_ICOUNT VM_APPEND VM_LRU_DEFERRED

# Guest tests run the project's binaries from build/: build them first when
# we are included by the top-level Makefile (it has 'all').
ifeq ($(notdir $(firstword $(MAKEFILE_LIST))),Makefile)
VM_BUILD_FIRST	:= all
endif

.PHONY: vmcheck vmshell vmfetch vmlint

vmcheck: $(VM_BUILD_FIRST)
	@tests/vm/harness/vmcheck.sh

vmshell: $(VM_BUILD_FIRST)
	@tests/vm/harness/vmshell.sh $(KERNEL)

vmfetch:
	@for s in $(or $(VM_KERNELS),6.1 6.12 6.1-cloud); do tests/vm/harness/kernel-fetch.sh $$s || exit 1; done

vmlint:
	@tests/vm/harness/vmcheck.sh --lint-only
