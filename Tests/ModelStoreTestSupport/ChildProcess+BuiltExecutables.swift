public import Foundation

extension ChildProcess {
    /// The executable `name` that SwiftPM built next to the running tests (a test target that
    /// runs one depends on its target, so `swift build --build-tests` builds it).
    public static func executable(named name: String) throws -> URL {
        let candidates = buildFolders
        for directory in candidates {
            let url = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw ExecutableNotFound(name: name, searched: candidates.map(\.path))
    }

    /// The folders the running tests may have been built into (`.build/<triple>/debug`, found
    /// from the test process's executable or bundle), where SwiftPM also puts executables and modules.
    public static var buildFolders: [URL] {
        var candidates: [URL] = []
        #if os(Linux)
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        #endif
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            candidates.append(bundle.bundleURL.deletingLastPathComponent())
        }
        return candidates
    }

    /// Starts the `ModelStoreTestHelper` executable with `arguments` (its modes are listed in
    /// Tests/ModelStoreTestHelper/main.swift).
    public static func testHelper(_ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess {
        try ChildProcess(try executable(named: "ModelStoreTestHelper"), arguments, environment: environment)
    }

    /// Runs the `ModelStoreTestHelper` executable to completion and returns every line it printed.
    public static func runTestHelper(_ arguments: [String]) throws -> [String] {
        try testHelper(arguments).finish()
    }
}

/// The executable a test runs was not built next to the tests.
public struct ExecutableNotFound: Error, CustomStringConvertible {
    public let name: String
    public let searched: [String]

    public var description: String {
        "\(name) not found in \(searched); run `swift build --build-tests` first"
    }
}
