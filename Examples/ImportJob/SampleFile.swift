import Foundation

/// Writes a sample input file of made-up customers, streaming, so even a file of millions of
/// lines is written in constant memory.
enum SampleFile {
    private static let names = [
        "Ada Lovelace", "Grace Hopper", "Alan Turing", "Hopper, Grace", "Edsger \"EWD\" Dijkstra",
    ]
    private static let cities = ["London", "New York", "Zürich", "Paris", "Tokyo"]

    /// Writes `count` customers to `url` in `format`, replacing the file.
    static func write(count: Int, to url: URL, format: InputFormat) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw ImportFailure("cannot create \(url.path)")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var buffer = Data()
        if format == .csv { buffer.append(Data((Customer.columns.joined(separator: ",") + "\n").utf8)) }
        for index in 0..<max(0, count) {
            let customer = sample(index + 1)
            switch format {
            case .ndjson:
                buffer.append(try encoder.encode(customer))
            case .csv:
                let fields = [String(customer.id), customer.name, customer.email, customer.city, customer.signedUp]
                buffer.append(Data(fields.map(csvField).joined(separator: ",").utf8))
            }
            buffer.append(UInt8(ascii: "\n"))
            if buffer.count >= 1 << 20 {
                try handle.write(contentsOf: buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        try handle.write(contentsOf: buffer)
    }

    /// `value` as a CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180).
    private static func csvField(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The customer with identifier `id`; the same every time, so tests can check values.
    static func sample(_ id: Int) -> Customer {
        let name = names[id % names.count]
        let day = 1 + id % 28
        return Customer(
            id: id,
            name: name,
            email: "customer\(id)@example.com",
            city: cities[id % cities.count],
            signedUp: "2024-01-" + (day < 10 ? "0" : "") + String(day))
    }
}
