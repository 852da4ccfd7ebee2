# The commands the README documents. Each installs LevelDB first if it is missing.
SWIFT ?= swift

.PHONY: dependencies demo test test-examples

dependencies:
	@./scripts/install-dependencies

# Runs the quick-start demo on the default directory (~/.cache/ModelStore on Linux).
demo: dependencies
	$(SWIFT) run modelstore-demo

# Builds and runs the whole test suite.
test: dependencies
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# Builds and tests the ServerFetched example package (server and client on loopback).
test-examples: dependencies
	cd Examples/ServerFetched && $(SWIFT) build --build-tests && $(SWIFT) test --skip-build
