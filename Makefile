# The commands the README documents. Each installs LevelDB first if it is missing.
SWIFT ?= swift

.PHONY: dependencies demo test test-examples bench bench-full

dependencies:
	@./scripts/install-dependencies

# Runs the quick-start demo on its default directory (~/.cache/ModelStore/modelstore-demo on Linux).
demo: dependencies
	$(SWIFT) run modelstore-demo

# Builds and runs the whole test suite.
test: dependencies
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# Builds and tests the ServerFetched example package (server and client on loopback).
test-examples: dependencies
	cd Examples/ServerFetched && $(SWIFT) build --build-tests && $(SWIFT) test --skip-build

# Benchmarks against LevelDB's C API and GRDB (a nested package); prints markdown tables.
bench: dependencies
	cd Benchmarks && $(SWIFT) run -c release modelstore-bench

# The same plus 1,000,000 records and the memory check (about 30 minutes on 2 cores).
bench-full: dependencies
	cd Benchmarks && $(SWIFT) run -c release modelstore-bench --full
