# Parley's commands. `make run` and `make test` install missing system packages first (scripts/install-deps.sh).
SWIFT ?= swift
DATA_DIR ?= ./data

.PHONY: deps test-deps build release run test bench clean

deps:
	./scripts/install-deps.sh

test-deps:
	./scripts/install-deps.sh --test

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product parley

run: release
	mkdir -p $(DATA_DIR)
	.build/release/parley serve --data-dir $(DATA_DIR)

test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	/usr/bin/python3 -m pytest -q -p no:cacheprovider Tests/Browser

bench: deps
	$(SWIFT) build -c release --product parley
	$(SWIFT) build -c release --product parley-bench
	./scripts/bench.sh .build

clean:
	rm -rf .build
