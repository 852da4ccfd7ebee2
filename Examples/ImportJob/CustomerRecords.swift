import Foundation

/// The input formats the job reads.
enum InputFormat: String, CaseIterable, Sendable {
    /// One JSON object per line.
    case ndjson
    /// Comma-separated values with a header line; fields may be quoted (`"Smith, Ada"`,
    /// `""` for a quote) but may not span lines.
    case csv

    /// The format a file name's extension suggests: `.csv` is CSV, anything else NDJSON.
    init(inferringFrom url: URL) {
        self = url.pathExtension.lowercased() == "csv" ? .csv : .ndjson
    }
}

/// Lines that could not be imported: counted, and the first few kept to show the user.
final class SkippedLines {
    private(set) var count = 0
    private(set) var examples: [String] = []

    func skip(line: Int, reason: String) {
        count += 1
        if examples.count < 5 { examples.append("line \(line): \(reason)") }
    }
}

/// The customers in an input file, parsed lazily one line at a time; malformed lines are
/// skipped and recorded in ``skipped``, so one bad line does not abort a large import.
struct CustomerRecords: Sequence {
    let reader: LineReader
    let format: InputFormat
    let skipped = SkippedLines()
    /// For CSV: where each of ``Customer/columns`` sits in a line.
    private let columnIndexes: [Int]

    /// Opens `url`; for CSV, reads the header line now so a wrong header fails before any
    /// record is written.
    init(url: URL, format: InputFormat) throws {
        reader = try LineReader(url: url)
        self.format = format
        guard format == .csv else {
            columnIndexes = []
            return
        }
        guard let header = reader.next() else {
            throw ImportFailure("\(url.path) is empty; a CSV file needs a header line")
        }
        let names = CSV.fields(of: header) ?? []
        columnIndexes = try Customer.columns.map { column in
            guard let index = names.firstIndex(of: column) else {
                throw ImportFailure(
                    "the CSV header has no \"\(column)\" column; expected \(Customer.columns.joined(separator: ","))")
            }
            return index
        }
    }

    func makeIterator() -> Iterator {
        Iterator(records: self)
    }

    /// Walks the lines, returning the next customer that parses.
    struct Iterator: IteratorProtocol {
        let records: CustomerRecords
        private let decoder = JSONDecoder()

        init(records: CustomerRecords) {
            self.records = records
        }

        mutating func next() -> Customer? {
            while let line = records.reader.next() {
                if line.allSatisfy(\.isWhitespace) { continue }
                do {
                    return try parse(line)
                } catch {
                    records.skipped.skip(line: records.reader.lineNumber, reason: "\(error)")
                }
            }
            return nil
        }

        private func parse(_ line: String) throws -> Customer {
            switch records.format {
            case .ndjson:
                return try decoder.decode(Customer.self, from: Data(line.utf8))
            case .csv:
                guard let fields = CSV.fields(of: line) else { throw ImportFailure("unbalanced quotes") }
                let values = records.columnIndexes.map { $0 < fields.count ? fields[$0] : nil }
                guard values.allSatisfy({ $0 != nil }) else {
                    throw ImportFailure("expected \(Customer.columns.count) columns, found \(fields.count)")
                }
                guard let id = Int(values[0]!) else {
                    throw ImportFailure("id \(values[0]!.debugDescription) is not a number")
                }
                return Customer(id: id, name: values[1]!, email: values[2]!, city: values[3]!, signedUp: values[4]!)
            }
        }
    }
}

/// A problem with the input that stops or skips part of the import.
struct ImportFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
