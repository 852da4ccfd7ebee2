// swift-tools-version: 6.1
import PackageDescription

// The plain-store workloads, in a package of their own that depends on ModelStore alone, so
// that the same source builds against an older checkout: `scripts/bench-compare BASE` copies
// this folder into a worktree of BASE, builds it there and here, and runs the two alternately.
// Its code uses only API every build since 2bd6e82 has.
//
//     swift build -c release && .build/release/plain-store-bench --help

let package = Package(
    name: "PlainStoreBench",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "plain-store-bench", targets: ["PlainStoreBench"]),
    ],
    dependencies: [
        // No traits: a plain store as an application that asks for none of the features builds it.
        .package(name: "ModelStore", path: "../../"),
    ],
    targets: [
        .executableTarget(
            name: "PlainStoreBench",
            dependencies: [.product(name: "ModelStore", package: "ModelStore")],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
