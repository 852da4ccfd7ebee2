public import Foundation

/// The root of ModelStore's package (where README.md and Package.swift are), for tests that
/// check files against the documentation: found from this file's own path, so a test file
/// may sit in any folder.
public enum PackageRoot {
    /// `Tests/ModelStoreTestSupport/PackageRoot.swift`, three levels up.
    public static let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
