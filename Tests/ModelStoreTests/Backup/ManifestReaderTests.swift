import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

/// The private copy links only tables numbered below the MANIFEST's next file number.
@Suite("MANIFEST reader")
struct ManifestReaderTests {
    @Test("The next file number read from a real MANIFEST is above every table and log of the database")
    func nextFileNumberIsAboveEveryFile() throws {
        let fixture = Fixture()
        var configuration = fixture.quietConfiguration
        configuration.writeBufferSize = 64 << 10
        let store = try ModelStore(name: "db", policy: .never, configuration: configuration)
        for index in 0..<3_000 { try store.set(String(repeating: "v", count: 100), forKey: "k\(index)") }
        try store.compact()
        let path = fixture.directory.path + "/db"
        let names = DatabaseFiles.names(in: path)
        let manifest = try #require(names.first { DatabaseFiles.kind(ofName: $0) == .manifest })
        let next = try #require(ManifestReader.nextFileNumber(in: Array(try Data(contentsOf: URL(fileURLWithPath: path + "/" + manifest)))))
        let numbers = names.filter { [.table, .writeAheadLog].contains(DatabaseFiles.kind(ofName: $0)) }
            .compactMap { UInt64($0.prefix { $0.isNumber }) }
        #expect(!numbers.isEmpty)
        #expect(numbers.allSatisfy { $0 < next }, "next \(next), files \(numbers)")
        try store.close()
    }

    @Test("Bytes that are not a MANIFEST read as unknown (nothing is linked), never as a number", arguments: [
        [UInt8](repeating: 0xFF, count: 64), Array("CURRENT\n".utf8) + [UInt8](repeating: 1, count: 40), [],
    ])
    func garbageIsUnknown(bytes: [UInt8]) {
        #expect(ManifestReader.nextFileNumber(in: bytes) == nil)
    }
}
