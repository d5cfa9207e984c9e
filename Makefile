# SPDX-License-Identifier: GPL-2.0
#
# Wren top-level make file.  The two commands a newcomer needs:
#
#   make demo    boot two guests with one Wren adapter each and show them
#   make check   every test: static gates, unit tests, guests
#
# Everything else here is a building block of those two.

WREN_TOP := $(CURDIR)
BUILD := $(WREN_TOP)/build

# build/config.mk is written by scripts/setup: kernel versions and paths.
-include $(BUILD)/config.mk

.PHONY: all setup modules modules-6.1 engine-test transport-test static guest-smoke \
	check demo clean help netsim netsim-test fabric fabric-test bench \
	dissector-test \
	bench-sim bench-sim-smoke bench-sim-scale bench-sim-blackhole \
	bench-guests fuzz rdtest rdtest-test swap swap-test \
	kunit kunit-mutants layers install uninstall dkms-install dkms-uninstall \
	uverbs-fuzz soak debug-kernel debug-selftest

all: modules

help:
	@echo "make demo             boot two guests and show their adapters"
	@echo "make check            run every test (set-up included)"
	@echo "make setup            install packages, fetch and build QEMU, rdma-core"
	@echo "make modules          build wren.ko and wren_ib.ko for the guests"
	@echo "make transport-test   the transport library's unit tests"
	@echo "make engine-test      the adapter engine's unit tests"
	@echo "make layers           no circle of calls through 3+ files of device/"
	@echo "make kunit            the drivers' KUnit suites (UML kernel, cached)"
	@echo "make kunit-mutants    show each suite fails on its deliberate bugs"
	@echo "make debug-kernel     the KASAN/lockdep/kmemleak guest kernel (cached), modules"
	@echo "make debug-selftest   show each of its checkers failing a guest's run"
	@echo "make fuzz             libFuzzer on the engine and transport (FUZZ_SECONDS=300 each)"
	@echo "make uverbs-fuzz      build the guests' uverbs fuzzer"
	@echo "make soak             long fuzzing: libFuzzer, then uverbs in a guest"
	@echo "make netsim           build the network simulator"
	@echo "make fabric           build the switch with impairments between guests"
	@echo "make fabric-test      the fabric's self-test on loopback"
	@echo "make dissector-test   tshark decodes a capture of every packet type"
	@echo "make rdtest           build the RD integrity test for the guests"
	@echo "make rdtest-test      its host self-tests"
	@echo "make swap             build libswap (SWAP over verbs) and its guest programs"
	@echo "make swap-test        its unit test on fake verbs"
	@echo "make bench            every benchmark: bench-sim*, bench-guests"
	@echo "make bench-guests     perftest between guests, Wren against rxe"
	@echo "make bench-sim        simulator scenarios S1-S17, targets and plots"
	@echo "make bench-sim-smoke  the make-check subset of bench-sim"
	@echo "make bench-sim-scale  the simulator at 8,192 and 1,024 hosts"
	@echo "make bench-sim-blackhole  a dark link under every workload"
	@echo "make install          install the built modules and libwren (KVER=, DESTDIR=)"
	@echo "make uninstall        remove exactly what make install installed"
	@echo "make dkms-install     register the modules' source with DKMS, build, install"
	@echo "make dkms-uninstall   remove them from DKMS and /usr/src"

setup:
	@scripts/setup

# The modules are built in a copy of the sources per kernel, so the 6.12
# and 6.1 builds never share objects and the source tree stays clean.
# KBUILD_FLAGS may add W=1 C=2 and so on.
modules: setup
	@scripts/build-modules "$(WREN_KDIR)" $(KBUILD_FLAGS)

modules-6.1: setup
	@scripts/build-modules "$(WREN_KDIR_61)" $(KBUILD_FLAGS)

transport-test:
	@$(MAKE) --no-print-directory -C device/transport test

engine-test:
	@$(MAKE) --no-print-directory -C device/engine test

# The calls between the files of the transport and of the engine go one
# way (scripts/check-layers), read from the objects their tests build.
layers:
	@$(MAKE) --no-print-directory -C device/transport lib
	@$(MAKE) --no-print-directory -C device/engine all
	@scripts/check-layers transport $(patsubst device/transport/%.c,\
		$(BUILD)/transport/%.o,$(wildcard device/transport/*.c))
	@scripts/check-layers engine $(patsubst device/engine/%.c,\
		$(BUILD)/engine/%.o,$(wildcard device/engine/*.c))

# The drivers' KUnit suites (kunit/README.rst), by kunit.py on a User Mode
# Linux kernel from linux-source-6.12, built once and cached.
# kunit-mutants applies the deliberate bugs of kunit/mutants/ one at a
# time (MUTANTS=GLOB picks some) and requires each to be caught.
kunit: setup
	@scripts/kunit

kunit-mutants: setup
	@scripts/kunit --mutants $(if $(MUTANTS),'$(MUTANTS)')

# The debug guest kernel (KASAN, lockdep, DEBUG_OBJECTS, kmemleak,
# DEBUG_ATOMIC_SLEEP), built once and cached, and the modules for it;
# scripts/vm --kernel debug boots it (Documentation/debugging.rst).
debug-kernel: setup
	@scripts/build-debug-kernel >/dev/null
	@. "$(BUILD)/debug-kernel.env" && \
		scripts/build-modules "$$WREN_DEBUG_KDIR" $(KBUILD_FLAGS)

debug-selftest: debug-kernel
	@scripts/check-debug-kernel

# libFuzzer on the transport's receive path and on the admin and doorbell
# interface; FUZZ_SECONDS=N (300) per target.
fuzz:
	@$(MAKE) --no-print-directory -C device/transport fuzz
	@$(MAKE) --no-print-directory -C device/engine fuzz

# wren_uverbs_fuzz (tools/uverbs-fuzz/README.rst): random and malformed
# verbs commands from an unprivileged user, which the guest test
# scripts/guest-tests/uverbs-fuzz.sh runs.
uverbs-fuzz:
	@$(MAKE) --no-print-directory -C tools/uverbs-fuzz

# Long fuzzing and kill loops (make check runs 15 s of each libFuzzer
# target, 60 s of the uverbs fuzzer, faults and removal once):
# SOAK_SECONDS=N (3600) per libFuzzer target, then as long of the uverbs
# fuzzer and of faults and removal in turn, in debug-kernel guests
# (scripts/soak).
SOAK_SECONDS ?= 3600

soak: setup modules uverbs-fuzz debug-kernel
	@scripts/soak $(SOAK_SECONDS)

check:
	@scripts/check

# The network simulator runs the transport of device/transport at scale;
# bench-sim writes build/bench/netsim.{json,csv} and plots.
netsim:
	@$(MAKE) --no-print-directory -C tools/netsim

netsim-test:
	@$(MAKE) --no-print-directory -C tools/netsim test

# The fabric joins the guests' dgram netdevs through K paths with delay,
# loss, duplication, reordering and black holes (tools/fabric/README.rst).
fabric:
	@$(MAKE) --no-print-directory -C tools/fabric

fabric-test:
	@$(MAKE) --no-print-directory -C tools/fabric test

# The wire dissector, tools/wireshark/wren.lua: tshark decodes a capture
# the transport made over a lossy wire and must count what it counted.
dissector-test:
	@$(MAKE) --no-print-directory -C tools/wireshark test

# The RD integrity test the guests run (tools/rdtest/README.rst); its
# host self-tests run on fake verbs.
rdtest:
	@$(MAKE) --no-print-directory -C tools/rdtest

rdtest-test:
	@$(MAKE) --no-print-directory -C tools/rdtest test

# libswap, the SWAP message protocol over verbs (Documentation/swap.rst),
# with swap_stress and swap_bench for the guests; its unit test runs on
# fake verbs.
swap:
	@$(MAKE) --no-print-directory -C libswap

swap-test: swap
	@$(MAKE) --no-print-directory -C libswap test

# Benchmarks report, they do not pass or fail (make check runs a smoke).
bench: bench-sim bench-sim-scale bench-sim-blackhole bench-guests

# perftest between two guests, Wren UD and RD against rxe UD and RC.
bench-guests: setup modules
	@/usr/bin/python3 scripts/bench-guests

bench-sim: netsim
	@/usr/bin/python3 tools/netsim/bench.py

bench-sim-smoke: netsim
	@/usr/bin/python3 tools/netsim/bench.py --smoke

bench-sim-scale: netsim
	@/usr/bin/python3 tools/netsim/bench.py --scale

# make check's black-hole stage (tools/netsim: make blackhole) and a
# dark link under every other workload.
bench-sim-blackhole: netsim
	@/usr/bin/python3 tools/netsim/bench.py --blackhole --long

demo:
	@scripts/demo

# Installation (Documentation/installation.rst): what make modules and
# scripts/setup built, for the guest kernel unless KVER says otherwise,
# under DESTDIR if given.  Builds nothing; uninstall removes what the
# manifest lists.
KVER ?= $(WREN_KVER)
DESTDIR ?=

install:
	@scripts/install install '$(KVER)' '$(DESTDIR)'

uninstall:
	@scripts/install uninstall '$(KVER)' '$(DESTDIR)'

# The modules' source under /usr/src/wren-<version> for DKMS, which builds
# and installs them for every installed kernel with headers (dkms.conf).
dkms-install:
	@scripts/dkms install

dkms-uninstall:
	@scripts/dkms uninstall

clean:
	rm -rf $(BUILD)
	$(MAKE) -C device/transport clean
	$(MAKE) -C device/engine clean
	$(MAKE) -C tools/netsim clean
	$(MAKE) -C tools/fabric clean
	$(MAKE) -C tools/wireshark clean
	$(MAKE) -C tools/uverbs-fuzz clean
