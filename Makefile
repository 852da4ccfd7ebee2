# The commands the README documents. Each installs LevelDB first if it is missing.
SWIFT ?= swift

.PHONY: dependencies demo test test-quick test-examples test-integrations bench bench-full bench-drivers bench-concurrency

dependencies:
	@./scripts/install-dependencies

# Runs the quick-start demo on its default directory (~/.cache/ModelStore/modelstore-demo on Linux).
demo: dependencies
	$(SWIFT) run modelstore-demo

# Builds and runs the whole test suite. The output goes to .build/test-output.log; the console
# gets failures, the summary and the slowest tests (scripts/run-tests).
test: dependencies
	$(SWIFT) build --build-tests
	SWIFT=$(SWIFT) ./scripts/run-tests

# The suite without the long crash, soak and fuzz tests (those marked `.long`): for iterating.
test-quick: dependencies
	$(SWIFT) build --build-tests
	MODELSTORE_QUICK=1 SWIFT=$(SWIFT) ./scripts/run-tests

# Builds and tests the ServerFetched example package (server and client on loopback).
test-examples: dependencies
	cd Examples/ServerFetched && $(SWIFT) build --build-tests && $(SWIFT) test --skip-build

# Builds and tests the Hummingbird and Vapor drivers (the Integrations package turns on both
# traits, so this is the one place that builds the two frameworks) over loopback.
# One test at a time (0.4 s either way): once in about 40 runs, two servers accepting their
# first connections at the same moment crashed inside the Swift 6.3.1 runtime while both
# instantiated NIO's generic HTTP types (SIGSEGV in swift_checkMetadataState under Vapor's
# addVaporHTTP1Handlers, no ModelStore frame on any thread).
test-integrations: dependencies
	cd Integrations && $(SWIFT) build --build-tests && $(SWIFT) test --skip-build --no-parallel

# Benchmarks against LevelDB's C API and GRDB (a nested package); prints markdown tables.
bench: dependencies
	cd Benchmarks && $(SWIFT) run -c release modelstore-bench

# The same plus 1,000,000 records and the memory check (about 30 minutes on 2 cores), then the
# concurrency benchmark below, so every performance target is printed with its verdict.
bench-full: dependencies
	cd Benchmarks && $(SWIFT) run -c release modelstore-bench --full
	$(MAKE) bench-concurrency

# Reads and puts from 1 and 2 threads, and read latency while two threads overwrite random keys
# of a 1,000,000-record store (about 3 minutes after the build); writes markdown, JSON and PNG
# plots into Benchmarks/results/. CONCURRENCY_ARGS adds options (e.g. --records 100000).
bench-concurrency: dependencies
	mkdir -p Benchmarks/results
	cd Benchmarks && $(SWIFT) run -c release modelstore-bench concurrency --json results/concurrency.json \
		$(CONCURRENCY_ARGS) >results/concurrency.md
	cat Benchmarks/results/concurrency.md
	./scripts/plot-concurrency Benchmarks/results/concurrency.json Benchmarks/results

# The drivers' benchmark: a Hummingbird app on loopback behind wrk, with no cache, the memory
# driver and ModelStore's driver; writes a markdown table (about 2 minutes after the build).
bench-drivers: dependencies
	./scripts/bench-drivers
