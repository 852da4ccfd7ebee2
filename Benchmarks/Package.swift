// swift-tools-version: 6.1
import PackageDescription

// The benchmarks are a package of their own so that ModelStore's users never resolve GRDB or
// any other benchmark-only dependency.
//
// Run them from this directory with:
//
//     swift run -c release modelstore-bench            # 100,000 records
//     swift run -c release modelstore-bench --full     # 100,000 and 1,000,000 records

/// Settings every Swift target shares, as in the root package.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "ModelStoreBenchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "modelstore-bench", targets: ["ModelStoreBenchmarks"]),
        .executable(name: "fleet-hit-profile", targets: ["FleetHitProfile"]),
    ],
    dependencies: [
        // With the Encryption trait, for the encryption experiment (swift-crypto for its key).
        .package(name: "ModelStore", path: "../", traits: ["Encryption"]),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Only for the read-through workload's "metrics on" rows: a backend to bootstrap.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    ],
    targets: [
        // LevelDB's C API for the baseline contenders. The root package's CLevelDB module is
        // internal to ModelStore, so the benchmarks bind the same system library themselves.
        .systemLibrary(
            name: "CLevelDBBaseline",
            providers: [.apt(["libleveldb-dev", "libsnappy-dev"]), .brew(["leveldb"])]
        ),
        // hiredis for the fleet experiment's raw GET, the baseline of a Redis hit through the tier.
        .systemLibrary(
            name: "CHiredisBaseline",
            providers: [.apt(["libhiredis-dev"]), .brew(["hiredis"])]
        ),
        // Tier hits or misses in one loop, for callgrind (main.swift says how to run it).
        .executableTarget(
            name: "FleetHitProfile",
            dependencies: [
                .product(name: "ModelStore", package: "ModelStore"),
                .product(name: "ModelStoreRedis", package: "ModelStore"),
            ],
            swiftSettings: strictSettings
        ),
        // Counts every allocation in the process (see MallocCounter.c).
        .target(name: "CMallocCounter"),
        .executableTarget(
            name: "ModelStoreBenchmarks",
            dependencies: [
                "CLevelDBBaseline",
                "CHiredisBaseline",
                "CMallocCounter",
                .product(name: "ModelStore", package: "ModelStore"),
                // Only the fleet experiment: the shared tier on Redis.
                .product(name: "ModelStoreRedis", package: "ModelStore"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
