import Foundation

/// The input formats the job reads.
enum InputFormat: String, CaseIterable, Sendable {
    /// One JSON object per line.
    case ndjson
    /// Comma-separated values (RFC 4180) with a header line naming the columns; quoted fields
    /// may hold commas, doubled quotes and line breaks.
    case csv

    /// The format a file name's extension suggests: `.csv` is CSV, anything else NDJSON.
    init(inferringFrom url: URL) {
        self = url.pathExtension.lowercased() == "csv" ? .csv : .ndjson
    }
}

/// What the import met in the input besides customers: lines skipped as malformed (counted,
/// the first few kept to show the user), blank lines, and the problem that stopped reading
/// early, if any.
final class InputTally {
    private(set) var skipped = 0
    private(set) var examples: [String] = []
    private(set) var blankLines = 0
    /// Set when the input cannot be read on (invalid UTF-8, a read error): the records before
    /// it are imported, nothing after it.
    private(set) var stop: ImportFailure?

    func skip(lines: ClosedRange<Int>, reason: String) {
        skipped += 1
        let place = lines.count == 1 ? "line \(lines.lowerBound)" : "lines \(lines.lowerBound)-\(lines.upperBound)"
        if examples.count < 5 { examples.append("\(place): \(reason)") }
    }

    func blank() {
        blankLines += 1
    }

    func stop(_ failure: ImportFailure) {
        if stop == nil { stop = failure }
    }
}

/// The customers in an input file, parsed lazily one record at a time; malformed lines are
/// skipped and recorded in ``tally``, so one bad line does not abort a large import.
struct CustomerRecords: Sequence {
    let format: InputFormat
    let tally = InputTally()
    /// Bytes taken from the file so far, for progress.
    let bytesRead = ByteCounter()
    private let source: Source

    private enum Source {
        case ndjson(LineReader)
        case csv(CSVCustomerReader)
    }

    /// Opens `url`; for CSV, reads the header line now so a wrong header fails before any
    /// record is written.
    init(url: URL, format: InputFormat) throws {
        self.format = format
        switch format {
        case .ndjson: source = .ndjson(try LineReader(url: url, bytesRead: bytesRead))
        case .csv: source = .csv(try CSVCustomerReader(url: url, tally: tally, bytesRead: bytesRead))
        }
    }

    func makeIterator() -> Iterator {
        Iterator(records: self)
    }

    /// Walks the input, returning the next customer that parses.
    struct Iterator: IteratorProtocol {
        let records: CustomerRecords
        private let decoder = JSONDecoder()

        init(records: CustomerRecords) {
            self.records = records
        }

        mutating func next() -> Customer? {
            switch records.source {
            case .csv(let reader): return reader.next()
            case .ndjson(let reader): return nextJSON(from: reader)
            }
        }

        private func nextJSON(from reader: LineReader) -> Customer? {
            let tally = records.tally
            guard tally.stop == nil else { return nil }
            while let line = reader.next() {
                guard reader.lineIsValidUTF8 else {
                    tally.stop(.invalidUTF8(line: reader.lineNumber))
                    return nil
                }
                if line.allSatisfy(\.isWhitespace) {
                    tally.blank()
                    continue
                }
                do {
                    return try decoder.decode(Customer.self, from: Data(line.utf8))
                } catch {
                    tally.skip(lines: reader.lineNumber...reader.lineNumber, reason: "\(error)")
                }
            }
            if let error = reader.readError { tally.stop(ImportFailure("reading the file failed: \(error)")) }
            return nil
        }
    }
}

/// A problem with the input that stops or skips part of the import.
struct ImportFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }

    /// The input is not UTF-8 at `line`.
    static func invalidUTF8(line: Int) -> ImportFailure {
        ImportFailure("line \(line) is not valid UTF-8; save the file as UTF-8 and import it again")
    }
}
