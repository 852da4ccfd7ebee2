import Foundation
import ModelStoreTestSupport
import Testing

/// The Encryption at rest article's packaging paragraph gives the packages an app pins without and with
/// the trait: what resolving such an app gives (as scripts/measure-encryption-packaging does,
/// without its builds).
@Suite("Encryption packaging")
struct EncryptionPackagingTests {
    /// The packages `swift package resolve` pins for a fresh app that depends on this checkout by
    /// path for the `ModelStore` product, with `traits`.
    static func pins(traits: String) throws -> [String] {
        let app = TemporaryDirectory()
        let checkout = PackageRoot.url.standardizedFileURL
        let manifest = """
            // swift-tools-version:6.1
            import PackageDescription

            let package = Package(
                name: "App",
                platforms: [.macOS(.v13)],
                dependencies: [.package(path: "\(checkout.path)", traits: \(traits))],
                targets: [.executableTarget(name: "App", dependencies: [
                    .product(name: "ModelStore", package: "\(checkout.lastPathComponent)")])]
            )
            """
        try FileManager.default.createDirectory(
            at: app.url.appendingPathComponent("Sources/App"), withIntermediateDirectories: true)
        try Data(manifest.utf8).write(to: app.url.appendingPathComponent("Package.swift"))
        try Data("import ModelStore\n".utf8).write(to: app.url.appendingPathComponent("Sources/App/main.swift"))
        let resolve = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["swift", "package", "--package-path", app.url.path, "resolve"])
        try #require(resolve.status == 0, "swift package resolve failed: \(resolve.stderr)")
        let resolved = try String(contentsOf: app.url.appendingPathComponent("Package.resolved"), encoding: .utf8)
        return resolved.components(separatedBy: "\"identity\" : \"").dropFirst().compactMap { $0.split(separator: "\"").first }
            .map(String.init).sorted()
    }

    @Test("Without the trait an app pins the documented number of packages; with it, those and swift-crypto and swift-asn1", .long)
    func pinCountsAreWhatResolvingGives() throws {
        let article = try String(
            contentsOf: PackageRoot.url.appendingPathComponent("Sources/ModelStore/ModelStore.docc/EncryptionAtRest.md"),
            encoding: .utf8)
        let paragraph = try #require(
            article.components(separatedBy: "builds a fresh app with and without `traits: [\"Encryption\"]`").dropFirst().first)
        func number(after text: String) throws -> Int {
            let rest = try #require(paragraph.components(separatedBy: text).dropFirst().first)
            return try #require(Int(rest.prefix { $0.isNumber }), "no number after \(text.debugDescription)")
        }
        let plain = try Self.pins(traits: "[]")
        let encrypted = try Self.pins(traits: "[\"Encryption\"]")
        #expect(try number(after: "without it the app pins ") == plain.count, "\(plain)")
        #expect(try number(after: "; with it, ") == encrypted.count, "\(encrypted)")
        #expect(Set(encrypted).subtracting(plain) == ["swift-asn1", "swift-crypto"])
    }
}
