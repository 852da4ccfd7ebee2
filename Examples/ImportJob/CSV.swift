import Foundation

/// The small part of CSV (RFC 4180) the import job needs, for one line at a time.
enum CSV {
    /// Splits a line into fields; nil if a quoted field is not closed on the line.
    static func fields(of line: String) -> [String]? {
        var fields: [String] = []
        var field = ""
        var inQuotes = false
        var characters = line.makeIterator()
        while let character = characters.next() {
            if inQuotes {
                if character == "\"" {
                    // A doubled quote inside quotes is a literal quote; a single one ends the field's quoting.
                    var lookahead = characters
                    if lookahead.next() == "\"" {
                        field.append("\"")
                        characters = lookahead
                    } else {
                        inQuotes = false
                    }
                } else {
                    field.append(character)
                }
            } else if character == "," {
                fields.append(field)
                field = ""
            } else if character == "\"" && field.isEmpty {
                inQuotes = true
            } else {
                field.append(character)
            }
        }
        if inQuotes { return nil }
        fields.append(field)
        return fields
    }

    /// `value` as a CSV field, quoted when it holds a comma, a quote or a line break.
    static func field(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
