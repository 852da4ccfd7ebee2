// swift-tools-version:6.1
import PackageDescription

/// Settings every target shares: upcoming features that keep imports and existentials explicit.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "ModelStore",
    // Linux and macOS: the two places the system LevelDB below (apt, Homebrew) can be linked.
    // iOS, tvOS and watchOS have no system LevelDB; the README says what a port would need.
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "ModelStore", targets: ["ModelStore"]),
        // The codecs alone (JSON, binary, property list), for programs that want the fast coders without the store.
        .library(name: "ModelStoreCodecs", targets: ["ModelStoreCodecs"]),
        // Empty unless the package is used with the trait of the same framework.
        .library(name: "ModelStoreHummingbird", targets: ["ModelStoreHummingbird"]),
        .library(name: "ModelStoreVapor", targets: ["ModelStoreVapor"]),
        // A shared tier on Redis (hiredis) for fleets: a product of its own, so an app that
        // depends on ModelStore alone never builds or links hiredis (README, "Running a fleet").
        .library(name: "ModelStoreRedis", targets: ["ModelStoreRedis"]),
        .executable(name: "modelstore", targets: ["ModelStoreCLI"]),
        // The examples are no products: a root package's executable targets still build and run
        // by their target names (`swift run modelstore-demo`, `swift run modelstore-import`),
        // and a package that depends on ModelStore never sees them.
    ],
    // The framework drivers are opt-in: a package that depends on ModelStore without these traits
    // never resolves, fetches or builds Hummingbird or Vapor (measured; see README, "Use with
    // Hummingbird"). Each trait is also a compilation condition of this package's targets.
    traits: [
        .trait(name: "Hummingbird", description: "Builds ModelStoreHummingbird, a Hummingbird 2 PersistDriver."),
        .trait(name: "Vapor", description: "Builds ModelStoreVapor, a Vapor 4 Cache."),
        .trait(
            name: "Encryption",
            description: "Encryption at rest (Configuration.encryption = .aes256GCM(key:)), through swift-crypto."),
    ],
    dependencies: [
        // Only with the Hummingbird trait (ranges, not exact pins: an app picks its own patch
        // releases of the frameworks). No default traits: the driver needs neither
        // swift-configuration nor full Foundation, and leaving them out shortens the build.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Only with the Vapor trait.
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Only with the Encryption trait: AES-256-GCM (Crypto on Linux; on Apple platforms it
        // forwards to CryptoKit). Both major versions offer the same API ModelStore uses.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // Read-through counters (hits, misses, fetches, ...); a no-op until the app bootstraps a backend.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Spans around read-through fetches and ModelStoreRedis's Redis round trips; no-ops until the
        // app bootstraps a tracer. Light: three small modules and no other package.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // Only for the ImportJob example's CSV input: a streaming RFC 4180 reader.
        .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
        // Only for `swift package generate-documentation`; nothing links against it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLevelDB",
            providers: [
                .apt(["libleveldb-dev", "libsnappy-dev"]),
                .brew(["leveldb"]),
            ]
        ),
        // Zstandard, for the opt-in record compression (Configuration.recordCompression): one
        // record's model compressed with a dictionary trained on the database's own records.
        .systemLibrary(
            name: "CZstd",
            providers: [
                .apt(["libzstd-dev"]),
                .brew(["zstd"]),
            ]
        ),
        // hiredis, Redis's C client, for ModelStoreRedis only: a core-only build never reads it.
        .systemLibrary(
            name: "CHiredis",
            providers: [
                .apt(["libhiredis-dev"]),
                .brew(["hiredis"]),
            ]
        ),
        // CRC-32C with the CPU's CRC instruction (SSE 4.2, ARMv8 CRC), chosen at run time.
        .target(name: "CModelStoreCRC"),
        // The JSON encoder's scan for bytes to escape, sixteen at a time (SSE2, NEON).
        .target(name: "CModelStoreJSON"),
        // Atomic loads, adds and compare-and-swap on a word: `Synchronization.Atomic` needs macOS 15.
        .target(name: "CModelStoreAtomics"),
        // Codable coders with no dependency on LevelDB or the store: ModelStore re-exports them.
        .target(
            name: "ModelStoreCodecs",
            dependencies: ["CModelStoreJSON"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "ModelStore",
            dependencies: [
                "CLevelDB",
                "CModelStoreAtomics",
                "CModelStoreCRC",
                "CZstd",
                "ModelStoreCodecs",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Encryption"])),
            ],
            swiftSettings: strictSettings
        ),
        // The shared tier on Redis: `RedisTier`, a `SharedTier` of the core.
        .target(
            name: "ModelStoreRedis",
            dependencies: [
                "ModelStore",
                "CHiredis",
                // Relaxed atomic words for what a Redis hit reads without a lock (TracingCheck.swift).
                "CModelStoreAtomics",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings
        ),
        // The drivers' sources are wrapped in `#if Hummingbird` / `#if Vapor`: without the trait
        // the module is empty and the framework is neither resolved nor built.
        .target(
            name: "ModelStoreHummingbird",
            dependencies: [
                "ModelStore",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle",
                    condition: .when(traits: ["Hummingbird"])),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "ModelStoreVapor",
            dependencies: [
                "ModelStore",
                .product(name: "Vapor", package: "vapor", condition: .when(traits: ["Vapor"])),
            ],
            swiftSettings: strictSettings
        ),
        // The quick-start demo (`make demo`); named as its command, since the target names the executable.
        .executableTarget(
            name: "modelstore-demo",
            dependencies: ["ModelStore"],
            path: "Examples/QuickStart",
            swiftSettings: strictSettings
        ),
        // A tiny program the tests spawn to hold a database from a second process.
        .executableTarget(
            name: "ModelStoreTestHelper",
            // CLevelDB: a mode holds a database through LevelDB's C API, as a foreign program would.
            // ModelStoreTestSupport: the records and seeded generator the crash tests check it by.
            dependencies: [
                "ModelStore", "CLevelDB", "ModelStoreTestSupport", .product(name: "Logging", package: "swift-log"),
                // The re-keying modes make keys.
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Encryption"])),
            ],
            path: "Tests/ModelStoreTestHelper",
            swiftSettings: strictSettings
        ),
        // The `modelstore` command-line tool.
        .executableTarget(
            name: "ModelStoreCLI",
            dependencies: [
                "ModelStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                // `--key-file`, to read encrypted databases.
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Encryption"])),
            ],
            swiftSettings: strictSettings
        ),
        // The import job example; named as its command, like the demo.
        .executableTarget(
            name: "modelstore-import",
            dependencies: [
                "ModelStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CSV", package: "CSV.swift"),
            ],
            path: "Examples/ImportJob",
            swiftSettings: strictSettings
        ),
        // What every test target and the test helper share: temporary directories and fixtures,
        // clocks, the seeded generator, the one way to run a child process, the crash tests'
        // records, and which tests are long (`make test-quick` leaves them out). Not a product.
        .target(
            name: "ModelStoreTestSupport",
            dependencies: [
                "ModelStore",
                // Its `TestTracer`: the tracing package's own in-memory tracer, to read spans.
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            path: "Tests/ModelStoreTestSupport",
            swiftSettings: strictSettings
        ),
        // A node of a fleet for the shared tier's tests: a store over a RedisTier, driven on stdin.
        .executableTarget(
            name: "ModelStoreRedisNode",
            dependencies: [
                "ModelStore", "ModelStoreRedis", "ModelStoreTestSupport", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/ModelStoreRedisNode",
            swiftSettings: strictSettings
        ),
        // The shared tier against a real redis-server the tests start (`make test-redis`); the
        // core's `make test` skips it, so it needs neither Redis nor hiredis at run time.
        .testTarget(
            name: "ModelStoreRedisTests",
            dependencies: [
                "ModelStore", "ModelStoreRedis", "ModelStoreRedisNode", "ModelStoreTestSupport",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Encryption"])),
            ],
            swiftSettings: strictSettings
        ),
        // Runs the built `modelstore`, `modelstore-import` and `modelstore-demo` executables on real stores.
        .testTarget(
            name: "ModelStoreCLITests",
            dependencies: [
                "ModelStore", "ModelStoreCLI", "modelstore-import", "modelstore-demo", "ModelStoreTestSupport",
                // The tool's own parser, to check that every command its messages advise parses.
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Encryption"])),
            ],
            swiftSettings: strictSettings
        ),
        // README.md's Swift examples, extracted by scripts/extract-readme-snippets: building
        // the tests compiles them. Never run. Warnings are off because the examples show
        // results they do not use (`try store.contains("user")`); errors still fail the build.
        .testTarget(
            name: "ReadmeSnippets",
            dependencies: ["ModelStore", "ModelStoreRedis"],
            swiftSettings: strictSettings + [.unsafeFlags(["-suppress-warnings"])]
        ),
        .testTarget(
            name: "ModelStoreCodecsTests",
            dependencies: ["ModelStoreCodecs", "ModelStoreTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ModelStoreTests",
            // CLevelDB: tests write raw version-1 records as a foreign LevelDB client would.
            // CZstd: tests craft compressed records ModelStore itself never writes.
            dependencies: [
                "ModelStore", "ModelStoreTestHelper", "ModelStoreTestSupport", "CLevelDB", "CZstd",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["Encryption"])),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
