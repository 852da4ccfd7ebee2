import CSV
import Foundation

/// Customers from a CSV file, read with CSV.swift's streaming reader, so memory stays flat
/// whatever the file's size.
///
/// The reader hands out rows, not lines, and stops quietly at the first byte that is not
/// UTF-8; this type adds what the import needs on top: line numbers (a quoted field may
/// span lines), a check that every row has as many columns as the header (a row with more
/// would otherwise be stored shifted into the wrong fields), blank lines told apart from
/// records, and invalid UTF-8 reported instead of being taken for the end of the file.
final class CSVCustomerReader {
    private let reader: CSVReader
    private let tally: InputTally
    private let bytesRead: ByteCounter
    /// The number of columns the header names.
    private let columnCount: Int
    /// Where each of ``Customer/columns`` sits in a row.
    private let columnIndexes: [Int]
    /// The line the next row starts on (1-based).
    private var nextLine: Int

    /// Opens `url` and reads the header.
    ///
    /// - Throws: ``ImportFailure`` if the file cannot be opened, is empty, or its header lacks
    ///   one of ``Customer/columns``.
    init(url: URL, tally: InputTally, bytesRead: ByteCounter) throws {
        guard let stream = InputStream(url: url) else { throw ImportFailure("cannot open \(url.path)") }
        do {
            reader = try CSVReader(stream: stream, hasHeaderRow: true)
        } catch CSVError.cannotReadHeaderRow {
            throw ImportFailure("\(url.path) is empty; a CSV file needs a header line")
        } catch {
            throw ImportFailure("cannot read \(url.path): \(error)")
        }
        if case CSVError.unicodeDecoding? = reader.error { throw ImportFailure.invalidUTF8(line: 1) }
        let header = reader.headerRow ?? []
        self.tally = tally
        self.bytesRead = bytesRead
        columnCount = header.count
        nextLine = 1 + Self.lineCount(of: header)
        bytesRead.add(Self.byteCount(of: header))
        columnIndexes = try Customer.columns.map { column in
            guard let index = header.firstIndex(of: column) else {
                throw ImportFailure(
                    "the CSV header has no \"\(column)\" column; expected \(Customer.columns.joined(separator: ","))")
            }
            return index
        }
    }

    /// The next customer that parses; nil at the end of the file or when reading stopped
    /// (``InputTally/stop`` then says why).
    func next() -> Customer? {
        guard tally.stop == nil else { return nil }
        while let row = reader.next() {
            let first = nextLine
            nextLine += Self.lineCount(of: row)
            bytesRead.add(Self.byteCount(of: row))
            // The reader ends a row early at a byte that is not UTF-8, so the row is incomplete.
            if readFailedOnUTF8 {
                tally.stop(.invalidUTF8(line: first + Self.lineCount(of: row) - 1))
                return nil
            }
            if row.count == 1, row[0].allSatisfy(\.isWhitespace) {
                tally.blank()
                continue
            }
            do {
                return try customer(from: row)
            } catch {
                tally.skip(lines: first...(nextLine - 1), reason: "\(error)")
            }
        }
        if let error = reader.error, !Self.isEndOfFile(error) {
            tally.stop(ImportFailure("reading the file failed: \(error)"))
        }
        return nil
    }

    /// Whether the reader stopped at a byte that is not UTF-8.
    private var readFailedOnUTF8: Bool {
        if case CSVError.unicodeDecoding? = reader.error { return true }
        return false
    }

    /// Whether `error` is how CSV.swift 2.5.2 reports the end of a file stream: its byte
    /// reader asks for one more byte after the last and records `cannotReadFile` when the
    /// stream returns none. A failed read is reported as `streamErrorHasOccurred` instead.
    private static func isEndOfFile(_ error: any Error) -> Bool {
        if case CSVError.cannotReadFile = error { return true }
        return false
    }

    private func customer(from row: [String]) throws -> Customer {
        guard row.count == columnCount else {
            throw ImportFailure("expected \(columnCount) columns as in the header, found \(row.count)")
        }
        let values = columnIndexes.map { row[$0] }
        guard let id = Int(values[0]) else {
            throw ImportFailure("id \(values[0].debugDescription) is not a number")
        }
        return Customer(id: id, name: values[1], email: values[2], city: values[3], signedUp: values[4])
    }

    /// How many lines a row spans: one, plus one per line break inside its quoted fields.
    private static func lineCount(of row: [String]) -> Int {
        var lines = 1
        for field in row where field.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) {
            // "\r\n" is one Character, so counting characters counts each line break once.
            lines += field.reduce(0) { $0 + ($1 == "\n" || $1 == "\r\n" || $1 == "\r" ? 1 : 0) }
        }
        return lines
    }

    /// About how many bytes a row took in the file (quotes are not counted), for progress.
    private static func byteCount(of row: [String]) -> Int {
        row.reduce(row.count) { $0 + $1.utf8.count }
    }
}
