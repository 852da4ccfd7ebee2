// swift-tools-version:6.1
import PackageDescription

// The framework drivers' tests and benchmark, and the ServerFetched example's tests, in a package
// of their own: it is the only place that builds ModelStore with the driver traits, so `make test`
// at the root never builds Hummingbird or Vapor, and this package builds each framework (and
// ModelStore, and the example) once for all its targets.

/// The same upcoming features the root package turns on for every target.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "ModelStoreIntegrations",
    platforms: [.macOS(.v15)],  // the ServerFetched example's
    dependencies: [
        // Exactly as an application adds the drivers: the traits switch them on.
        .package(name: "ModelStore", path: "..", traits: ["Hummingbird", "Vapor"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The example's server and client, for ServerFetchedTests (its own package has no tests).
        .package(name: "ServerFetched", path: "../Examples/ServerFetched"),
    ],
    targets: [
        // `make bench-drivers`: a Hummingbird app behind wrk, with no cache, the memory driver and
        // ModelStore's driver.
        .executableTarget(
            name: "DriverBenchmark",
            dependencies: [
                .product(name: "ModelStore", package: "ModelStore"),
                .product(name: "ModelStoreHummingbird", package: "ModelStore"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The temporary directory and clock the drivers' and the example's tests use.
        .target(
            name: "IntegrationTestSupport",
            dependencies: [.product(name: "ModelStore", package: "ModelStore")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "HummingbirdDriverTests",
            dependencies: [
                "IntegrationTestSupport",
                .product(name: "ModelStore", package: "ModelStore"),
                .product(name: "ModelStoreHummingbird", package: "ModelStore"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // README.md's Hummingbird and Vapor examples, extracted by scripts/extract-driver-snippets:
        // building the tests compiles them (with both traits on, which the root package's own
        // ReadmeSnippets cannot have). Never run. Warnings are off, as in ReadmeSnippets: the
        // examples leave results unused; errors still fail the build.
        .testTarget(
            name: "DriverReadmeSnippets",
            dependencies: [
                .product(name: "ModelStore", package: "ModelStore"),
                .product(name: "ModelStoreHummingbird", package: "ModelStore"),
                .product(name: "ModelStoreVapor", package: "ModelStore"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "Vapor", package: "vapor"),
            ],
            swiftSettings: strictSettings + [.unsafeFlags(["-suppress-warnings"])]
        ),
        // The README's driver manifests load, and the compiled copies above are up to date.
        .testTarget(
            name: "DriverReadmeTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "VaporDriverTests",
            dependencies: [
                "IntegrationTestSupport",
                .product(name: "ModelStore", package: "ModelStore"),
                .product(name: "ModelStoreVapor", package: "ModelStore"),
                .product(name: "Vapor", package: "vapor"),
            ],
            swiftSettings: strictSettings
        ),
        // Examples/ServerFetched's server and client, for real on loopback (`make test-examples`).
        .testTarget(
            name: "ServerFetchedTests",
            dependencies: [
                "IntegrationTestSupport",
                .product(name: "UserAPI", package: "ServerFetched"),
                .product(name: "UserServer", package: "ServerFetched"),
                .product(name: "UserClient", package: "ServerFetched"),
                .product(name: "ModelStore", package: "ModelStore"),
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
