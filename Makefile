# Two entry points for people: `make demo` and `make test`. Both install what is missing
# from Debian's packages (run as root on Debian 12), configure, build and run.
SHELL := /bin/bash
BUILD ?= build
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 20
JOBS ?= $(shell nproc)

DEBS := cmake ninja-build g++ pkg-config ccache make \
        libboost1.81-dev libyaml-cpp-dev libidn2-dev libcli11-dev nlohmann-json3-dev \
        libtomlplusplus-dev libgtest-dev libgmock-dev libbenchmark-dev libc-ares-dev \
        libspdlog-dev libfmt-dev libssl-dev clang libclang-rt-14-dev \
        curl dnsmasq-base bind9-dnsutils dnsperf iproute2 python3 openssl

.PHONY: all deps configure build demo test unit fuzz bench clean uat-clis

all: build

deps:
	@missing=$$(for p in $(DEBS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "halo: installing missing Debian packages:" $$missing; \
	  if [ "$$(id -u)" != 0 ]; then echo "halo: run as root (or install them yourself)"; exit 1; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja

configure: $(BUILD)/build.ninja

build: deps configure
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@bash examples/demo.sh $(BUILD)/cli/halo

fuzz: deps
	@if command -v clang++ >/dev/null; then \
	  cmake -S . -B $(FUZZ_BUILD) -G Ninja -DHALO_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ \
	    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null && \
	  cmake --build $(FUZZ_BUILD) -j $(JOBS) && \
	  bash fuzz/run_all.sh $(FUZZ_BUILD)/fuzz $(FUZZ_SECONDS); \
	else echo "halo: clang++ not found, fuzzers skipped"; fi

unit: build
	cd $(BUILD) && ctest --output-on-failure --timeout 300 -j $(JOBS)

# Fuzzers first (bounded), then every CTest test; CTest's summary is the last line.
test: build fuzz
	cd $(BUILD) && ctest --output-on-failure --timeout 300 -j $(JOBS)

# Not part of `make test`: installs Claude Code, Codex, Gemini CLI, Copilot CLI and OpenCode
# from the npm registry npm is configured with into a scratch folder, and checks the files
# `halo render` writes with each CLI's own offline validation. Needs root.
UAT_DIR ?= $(BUILD)/uat-clis
uat-clis: build
	bash scripts/uat-clis.sh $(BUILD)/cli/halo $(abspath $(UAT_DIR))

bench: build
	$(BUILD)/bench/decide_bench --benchmark_min_time=0.2

clean:
	rm -rf $(BUILD) $(FUZZ_BUILD)
