// Generated from README.md by scripts/extract-driver-snippets: do not edit; run the script.

/// README.md's Package.swift examples for the drivers, each a whole manifest.
enum ReadmeManifests {
    static let all: [(line: Int, driver: String, text: String)] = [
        (
            line: 674, driver: "Hummingbird",
            text: #"""
            // swift-tools-version:6.1
            import PackageDescription

            let package = Package(
                name: "MyApp",
                platforms: [.macOS(.v14)],
                dependencies: [
                    .package(path: "../ModelStore", traits: ["Hummingbird"]),
                    // or: .package(url: "https://github.com/<owner>/ModelStore", from: "1.0.0", traits: ["Hummingbird"]),
                    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
                    .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
                ],
                targets: [
                    .executableTarget(name: "MyApp", dependencies: [
                        .product(name: "ModelStore", package: "ModelStore"),
                        .product(name: "ModelStoreHummingbird", package: "ModelStore"),
                        .product(name: "Hummingbird", package: "hummingbird"),
                        .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                    ]),
                ]
            )
            """#
        ),
        (
            line: 758, driver: "Vapor",
            text: #"""
            // swift-tools-version:6.1
            import PackageDescription

            let package = Package(
                name: "MyApp",
                platforms: [.macOS(.v13)],
                dependencies: [
                    .package(path: "../ModelStore", traits: ["Vapor"]),   // a clone next to the app, as above
                    // or: .package(url: "https://github.com/<owner>/ModelStore", from: "1.0.0", traits: ["Vapor"]),
                    .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
                ],
                targets: [
                    .executableTarget(name: "MyApp", dependencies: [
                        .product(name: "ModelStore", package: "ModelStore"),
                        .product(name: "ModelStoreVapor", package: "ModelStore"),
                        .product(name: "Vapor", package: "vapor"),
                    ]),
                ]
            )
            """#
        ),
    ]
}
