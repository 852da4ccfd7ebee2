// swift-tools-version:6.1
import PackageDescription

// A nested package, so that ModelStore itself never depends on Hummingbird: only this example
// resolves and builds the HTTP server. Its tests live in the Integrations package, which depends
// on this one by path, so CI builds swift-nio, Hummingbird and ModelStore once for both
// (`make test-examples`).

/// The same upcoming features the root package turns on for every target.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "ServerFetched",
    platforms: [.macOS(.v15)],  // Synchronization.Mutex
    products: [
        .executable(name: "user-server", targets: ["UserServerCommand"]),
        .executable(name: "user-client", targets: ["UserClientCommand"]),
        // For the tests in Integrations/Tests/ServerFetchedTests.
        .library(name: "UserAPI", targets: ["UserAPI"]),
        .library(name: "UserServer", targets: ["UserServer"]),
        .library(name: "UserClient", targets: ["UserClient"]),
    ],
    dependencies: [
        // The Hummingbird trait turns on ModelStore's persist driver (ModelStoreHummingbird).
        .package(name: "ModelStore", path: "../..", traits: ["Hummingbird"]),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // No default traits: the example needs neither swift-configuration nor full Foundation
        // in the server, and leaving them out shortens the (already long) first build.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
    ],
    targets: [
        // The model both sides agree on; depends on nothing.
        .target(name: "UserAPI", swiftSettings: strictSettings),
        .target(
            name: "UserServer",
            dependencies: [
                "UserAPI",
                .product(name: "ModelStore", package: "ModelStore"),
                .product(name: "ModelStoreHummingbird", package: "ModelStore"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // The server keeps its users behind Hummingbird's PersistDriver API, with ModelStore's
        // driver (ModelStoreHummingbird); the client reads through ModelStore's read-through API.
        .target(
            name: "UserClient",
            dependencies: ["UserAPI", .product(name: "ModelStore", package: "ModelStore")],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "UserServerCommand",
            dependencies: ["UserServer", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "UserClientCommand",
            dependencies: ["UserAPI", "UserClient", .product(name: "ModelStore", package: "ModelStore")],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
