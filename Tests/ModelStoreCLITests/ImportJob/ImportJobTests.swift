import Foundation
import ModelStore
import Testing
import ModelStoreTestSupport

/// The `modelstore-import` example: generating a sample file and importing it.
@Suite struct ImportJobTests {
    /// The customer model as the import job stores it.
    struct Customer: Decodable, Equatable {
        var id: Int
        var name: String
        var email: String
        var city: String
        var signedUp: String
    }

    @Test(arguments: ["ndjson", "csv"])
    func importsAGeneratedFileAndReportsCountsAndTimings(format: String) throws {
        let fixture = StoreFixture()
        let file = fixture.root.appendingPathComponent("customers.\(format)")

        let generated = try ToolProcess.importJob(["--generate", "2500", file.path])
        #expect(generated.status == 0)
        #expect(generated.stdout.contains("Wrote 2500 sample customers"))

        let imported = try ToolProcess.importJob([file.path, "--batch-size", "1000"] + fixture.rootArguments)
        #expect(imported.status == 0)
        #expect(imported.stdout.contains("Imported 2500 records from customers.\(format) into customers in "))
        #expect(imported.stdout.contains("3 batches"))
        #expect(imported.stdout.contains("Swept 0 expired records"))
        #expect(imported.stdout.contains("customers now holds 2500 records"))
        #expect(imported.stderr.isEmpty)

        let store = try fixture.open("customers")
        defer { try? store.close() }
        #expect(try store.count() == 2500)
        let customer = try #require(try store.object(Customer.self, forKey: "customer:4"))
        #expect(customer.email == "customer4@example.com")
        #expect(customer.name == "Edsger \"EWD\" Dijkstra")  // quoted in the CSV
    }

    @Test func malformedLinesAreSkippedAndReported() throws {
        let fixture = StoreFixture()
        let file = fixture.root.appendingPathComponent("customers.ndjson")
        let lines = [
            #"{"id":1,"name":"Ada","email":"ada@example.com","city":"London","signedUp":"2024-01-01"}"#,
            #"{"id":2,"name":"Grace""#,
            "",
            #"{"id":3,"name":"Alan","email":"alan@example.com","city":"Manchester","signedUp":"2024-01-03"}"#,
        ]
        try Data(lines.joined(separator: "\n").utf8).write(to: file)

        let result = try ToolProcess.importJob([file.path, "--name", "people"] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("Imported 2 records"))
        #expect(result.stdout.contains("Skipped 1 malformed line:"))
        #expect(result.stdout.contains("line 2:"))

        let store = try fixture.open("people")
        defer { try? store.close() }
        #expect(try store.keys().collect() == ["customer:1", "customer:3"])
    }

    /// Writes `text` as `customers.<format>` in the fixture's root.
    private func input(_ text: [UInt8], format: String = "csv", in fixture: StoreFixture) throws -> URL {
        let file = fixture.root.appendingPathComponent("customers.\(format)")
        try Data(text).write(to: file)
        return file
    }

    private static let header = "id,name,email,city,signedUp\n"

    @Test func csvLineWithTooManyColumnsIsSkippedNotStoredShifted() throws {
        let fixture = StoreFixture()
        let file = try input(
            Array((Self.header + "1,Ada,ada@example.com,London,2024-01-01\n"
                + "2,Lovelace,Ada,ada@example.com,London,2024-01-02\n").utf8), in: fixture)

        let result = try ToolProcess.importJob([file.path] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("Imported 1 records"))
        #expect(result.stdout.contains("line 3: expected 5 columns as in the header, found 6"))
        let store = try fixture.open("customers")
        defer { try? store.close() }
        #expect(try store.keys().collect() == ["customer:1"])
    }

    @Test(arguments: ["csv", "ndjson"])
    func invalidUTF8StopsTheImportAndNamesTheLine(format: String) throws {
        let fixture = StoreFixture()
        let lines =
            format == "csv"
            ? [
                Self.header, "1,Ada,ada@example.com,London,2024-01-01\n",
                "2,Z\u{FF}rich,z@example.com,Bern,2024-01-02\n",
            ]
            : [
                #"{"id":1,"name":"Ada","email":"a@x","city":"London","signedUp":"2024-01-01"}"# + "\n",
                "\n",
                #"{"id":2,"name":"Z\#u{FF}rich","email":"z@x","city":"Bern","signedUp":"2024-01-02"}"# + "\n",
            ]
        // U+00FF is written as the single byte 0xFF, which is never valid UTF-8.
        let bytes = lines.joined().unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
        let file = try input(bytes, format: format, in: fixture)

        let result = try ToolProcess.importJob([file.path] + fixture.rootArguments)
        #expect(result.status == 1)
        #expect(result.stderr.contains("line 3 is not valid UTF-8"), "\(result.stderr)")
        let store = try fixture.open("customers")
        defer { try? store.close() }
        #expect(try store.keys().collect() == ["customer:1"])
    }

    @Test func blankLinesAreReportedInTheSummary() throws {
        let fixture = StoreFixture()
        let file = try input(
            Array((Self.header + "\n1,Ada,ada@example.com,London,2024-01-01\n\n\n").utf8), in: fixture)
        let result = try ToolProcess.importJob([file.path] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("Ignored 3 blank lines."))
    }

    @Test func recordsThatReplaceAnEarlierIdAreReportedInTheSummary() throws {
        let fixture = StoreFixture()
        let file = try input(
            Array((Self.header + "1,Ada,ada@example.com,London,2024-01-01\n"
                + "2,Grace,grace@example.com,New York,2024-01-02\n"
                + "1,Ada Lovelace,ada@example.com,London,2024-01-03\n").utf8), in: fixture)
        let result = try ToolProcess.importJob([file.path] + fixture.rootArguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("Imported 3 records"))
        #expect(result.stdout.contains("Replaced 1 record with the same id"))
        #expect(result.stdout.contains("customers now holds 2 records"))
    }

    @Test func missingFileIsAOneLineError() throws {
        let fixture = StoreFixture()
        let missing = fixture.root.appendingPathComponent("nowhere.csv")
        let result = try ToolProcess.importJob([missing.path] + fixture.rootArguments)
        #expect(result.status == 1)
        #expect(result.stderr == "error: no file at \(missing.path); pass the path of an NDJSON or CSV file\n")
        #expect(!fixture.contains("customers"))
    }

    @Test(arguments: [
        [], ["x.csv", "--batch-size", "0"], ["x.csv", "--batch-size", "-3"], ["--generate", "-1", "x.csv"],
    ])
    func usageErrorsExitWithTheSameCodeAsModelstore(arguments: [String]) throws {
        let result = try ToolProcess.importJob(arguments)
        #expect(result.status == 2)
        #expect(!result.stderr.isEmpty)
        #expect(!result.stderr.contains("Missing value"))
    }

    @Test func csvWithoutTheExpectedHeaderIsRefusedBeforeWriting() throws {
        let fixture = StoreFixture()
        let file = fixture.root.appendingPathComponent("customers.csv")
        try Data("id,name\n1,Ada\n".utf8).write(to: file)
        let result = try ToolProcess.importJob([file.path] + fixture.rootArguments)
        #expect(result.status == 1)
        #expect(result.stderr.contains("no \"email\" column"))
        #expect(!fixture.contains("customers"))
    }
}
