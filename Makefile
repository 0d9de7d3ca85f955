# The two-command front door (see README.md):
#   make run   builds the release tree and runs the main benchmark on every visible GPU
#   make test  builds every kernel and runs the test tiers (GPU tiers skip without a GPU)
SHELL := /bin/bash
JOBS ?= $(shell nproc)
RUN_ARGS ?=

.PHONY: run test deps release ci install
deps:
	@scripts/install-deps.sh

release: deps
	cmake --preset release
	cmake --build --preset release -j $(JOBS)

# The build log carries ptxas's report: spills or serialised wgmma fail the build.
ci: deps
	cmake --preset ci
	set -o pipefail; cmake --build --preset ci -j $(JOBS) 2>&1 | tee build/ci/build.log
	scripts/check-ptxas-report.sh build/ci/build.log build/ci --incremental

# Without a GPU, said before the long build: symm-gpus (symm::launch only) builds in seconds.
run: deps
	cmake --preset release
	cmake --build --preset release --target symm-gpus
	build/release/tools/gpu-count/symm-gpus >/dev/null
	cmake --build --preset release -j $(JOBS)
	scripts/main-job.sh build/release $(RUN_ARGS)

test: ci
	ctest --test-dir build/ci --output-on-failure -j $(JOBS) --no-tests=error

install: release
	cmake --install build/release --prefix $(or $(PREFIX),/usr/local)
