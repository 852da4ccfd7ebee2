# The commands the README documents. Each installs LevelDB first if it is missing.
SWIFT ?= swift
# swift, without the warning SwiftPM repeats on every build about swift-distributed-tracing's
# CMakeLists.txt files (harmless: see scripts/quiet-swift).
QUIET_SWIFT = SWIFT=$(SWIFT) $(CURDIR)/scripts/quiet-swift
# The package traits every target of this package builds with: Encryption, so that the
# encryption tests (and a `modelstore` that reads encrypted databases) are built. One trait set
# for all of them, because SwiftPM rebuilds the core when the traits change: `make demo` and
# `make test` share one build. Users who do not ask for the trait never build swift-crypto;
# `make build TRAITS=` builds without it (and `make demo TRAITS=` then shares that build).
TRAITS ?= Encryption
TRAIT_FLAGS = $(if $(TRAITS),--traits $(TRAITS),)

.PHONY: dependencies demo build test test-quick test-scale test-redis bench-fleet build-integrations test-examples test-integrations bench bench-full bench-drivers bench-concurrency bench-compare bench-callgrind

dependencies:
	@./scripts/install-dependencies

# Runs the quick-start demo on its default directory (~/.cache/ModelStore/modelstore-demo on Linux).
demo: dependencies
	$(QUIET_SWIFT) run $(TRAIT_FLAGS) modelstore-demo

# Builds the package with its tests (what `make test` runs first).
build: dependencies
	$(QUIET_SWIFT) build --build-tests $(TRAIT_FLAGS)

# Builds and runs the whole test suite. The output goes to .build/test-output.log; the console
# gets a line per suite as it ends, failures, the summary and the slowest tests by their own
# time (scripts/run-tests).
test: build
	SWIFT=$(SWIFT) ./scripts/run-tests $(TRAIT_FLAGS) --skip ModelStoreRedisTests

# The suite without the long crash, soak and fuzz tests (those marked `.long`): for iterating.
test-quick: build
	MODELSTORE_QUICK=1 SWIFT=$(SWIFT) ./scripts/run-tests $(TRAIT_FLAGS) --skip ModelStoreRedisTests

# The scale tests, left out of `make test` for their minutes: ten million records imported, then
# evicted down to a count limit within eviction's memory bound (Tests/ModelStoreTests/Eviction/
# EvictionScaleTests.swift). Output: .build/scale-test-output.log.
test-scale: build
	MODELSTORE_SCALE_TESTS=1 TEST_LOG=.build/scale-test-output.log SWIFT=$(SWIFT) ./scripts/run-tests $(TRAIT_FLAGS) --filter EvictionScaleTests

# The shared tier (ModelStoreRedis) against real redis-server processes the tests start on
# loopback ports, with node processes; left out of `make test` so the core needs no Redis.
# Output: .build/redis-test-output.log.
test-redis: build
	TEST_LOG=.build/redis-test-output.log SWIFT=$(SWIFT) ./scripts/run-tests $(TRAIT_FLAGS) --filter ModelStoreRedisTests

# Builds the Integrations package: the Hummingbird and Vapor drivers (it turns on both traits,
# so it is the one place that builds the two frameworks), their tests, and the ServerFetched
# example with its tests (the example's package depends on the same ModelStore, swift-nio and
# Hummingbird, so all of it is built once, here).
build-integrations: dependencies
	cd Integrations && $(QUIET_SWIFT) build --build-tests

# Tests the ServerFetched example (server and client on loopback), built by build-integrations.
# Output: Integrations/.build/examples-output.log; the console gets the summary and slowest tests.
test-examples: build-integrations
	cd Integrations && SWIFT=$(SWIFT) TEST_LOG=.build/examples-output.log ../scripts/run-tests \
		--filter ServerFetchedTests

# Tests the Hummingbird and Vapor drivers over loopback (Integrations/.build/integrations-output.log).
# One test at a time (0.4 s either way): once in about 40 runs, two servers accepting their
# first connections at the same moment crashed inside the Swift 6.3.1 runtime while both
# instantiated NIO's generic HTTP types (SIGSEGV in swift_checkMetadataState under Vapor's
# addVaporHTTP1Handlers, no ModelStore frame on any thread).
test-integrations: build-integrations
	cd Integrations && SWIFT=$(SWIFT) TEST_LOG=.build/integrations-output.log ../scripts/run-tests \
		--no-parallel --skip ServerFetchedTests

# Benchmarks against LevelDB's C API and GRDB (a nested package); prints markdown tables.
bench: dependencies
	cd Benchmarks && $(QUIET_SWIFT) run -c release modelstore-bench

# The same plus 1,000,000 records and the memory check (about 30 minutes on 2 cores), then the
# concurrency benchmark below, so every performance target is printed with its verdict.
bench-full: dependencies
	cd Benchmarks && $(QUIET_SWIFT) run -c release modelstore-bench --full
	$(MAKE) bench-concurrency

# Reads and puts from 1 and 2 threads, and read latency while two threads overwrite random keys
# of a 1,000,000-record store (about 3 minutes after the build); writes markdown, JSON and PNG
# plots into Benchmarks/results/. CONCURRENCY_ARGS adds options (e.g. --records 100000).
bench-concurrency: dependencies
	mkdir -p Benchmarks/results
	cd Benchmarks && $(QUIET_SWIFT) run -c release modelstore-bench concurrency --json results/concurrency.json \
		$(CONCURRENCY_ARGS) >results/concurrency.md
	cat Benchmarks/results/concurrency.md
	./scripts/plot-concurrency Benchmarks/results/concurrency.json Benchmarks/results

# The shared tier's benchmark (needs redis-server; starts its own on a free loopback port): a
# local hit with and without a RedisTier, and three nodes' throughput and upstream fetches.
bench-fleet: dependencies
	cd Benchmarks && $(QUIET_SWIFT) run -c release modelstore-bench fleet

# A plain store built from BASE against one built from this checkout (Benchmarks/PlainStore),
# run alternately: `make bench-compare BASE=2bd6e82`. ROUNDS, REPETITIONS, RECORDS, HITS, ONLY
# and BASE_WORKTREE pass through (scripts/bench-compare says what they do).
bench-compare: dependencies
	@test -n "$(BASE)" || { echo "usage: make bench-compare BASE=<commit>"; exit 2; }
	./scripts/bench-compare $(BASE)

# One of those workloads under callgrind in both builds: instructions per operation and the
# functions that changed most (`make bench-callgrind BASE=2bd6e82 WORKLOAD=sweep-binary`).
bench-callgrind: dependencies
	@test -n "$(BASE)" -a -n "$(WORKLOAD)" || { echo "usage: make bench-callgrind BASE=<commit> WORKLOAD=<id>"; exit 2; }
	./scripts/bench-callgrind $(BASE) $(WORKLOAD) $(RECORDS)

# The drivers' benchmark: a Hummingbird app on loopback behind wrk, with no cache, the memory
# driver and ModelStore's driver; writes a markdown table (about 2 minutes after the build).
bench-drivers: dependencies
	./scripts/bench-drivers
