import Foundation
import ModelStore
import Testing

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
