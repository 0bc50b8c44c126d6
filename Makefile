# SPDX-License-Identifier: MIT
# Short commands over the CMake build. `make run` and `make test` are the
# two a newcomer needs; both install what is missing first.
MAKEFLAGS += --no-print-directory
BUILD ?= build
SAN_BUILD ?= build-san
FUZZ_BUILD ?= build-fuzz
DEB_BUILD ?= build-deb
DEB_OUT ?= .
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 60
PREFIX ?= /usr/local

.PHONY: all deps configure build run tour test alloc bench chaos fuzz san lint install deb clean

all: build

deps:
	@scripts/deps.sh

$(BUILD)/CMakeCache.txt:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null

build: deps $(BUILD)/CMakeCache.txt
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	@scripts/run.sh $(BUILD)/sked

tour: build
	@scripts/tour.sh $(BUILD)/sked

# The exhaustive allocation failure loops (label alloc_full) take tens of
# minutes: `make alloc` runs them, under the sanitizers; `make test` and
# `make san` run the same loops failing every few allocations.
test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE alloc_full

san: deps
	@CC=clang cmake -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=Debug \
	    -DSKED_SANITIZE=ON -DSKED_BENCH=OFF >/dev/null
	@cmake --build $(SAN_BUILD) -j $(JOBS)
	@cd $(SAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    ctest --output-on-failure -j $(JOBS) -L 'unit|replay|integration|store|pg' -LE alloc_full

alloc: san
	@cd $(SAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    ctest --output-on-failure -j $(JOBS) -L alloc_full

bench: build
	@scripts/bench.sh $(BUILD) $(if $(BENCH_ONLY),--only $(BENCH_ONLY))

# Real servers under random faults for CHAOS_MINUTES (default 10); not
# part of `make test` (tests/chaos/chaos.sh, docs/development.md).
chaos: build
	@tests/chaos/chaos.sh $(BUILD)

fuzz: deps
	@CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    -DSKED_FUZZ=ON -DSKED_SANITIZE=ON -DSKED_TESTS=OFF >/dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS)
	@scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

lint:
	@scripts/lint.sh

install: build
	@cmake --install $(BUILD)

# The Debian package, from a release build for /usr of its own
# (scripts/deb.sh; docs/service.md): sked_VERSION-1_ARCH.deb in DEB_OUT.
deb: deps
	@cmake -S . -B $(DEB_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    -DCMAKE_INSTALL_PREFIX=/usr -DSKED_TESTS=OFF -DSKED_BENCH=OFF >/dev/null
	@cmake --build $(DEB_BUILD) -j $(JOBS)
	@scripts/deb.sh $(DEB_BUILD) $(DEB_OUT)

clean:
	@rm -rf $(BUILD) $(SAN_BUILD) $(FUZZ_BUILD) $(DEB_BUILD)
