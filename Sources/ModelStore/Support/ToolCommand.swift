/// A `modelstore` command line, quoted so that pasting it into a shell passes every argument
/// through unchanged: what messages of the library and of the tool advise, built in one place so
/// the two never disagree. Not part of the stable API.
///
/// Words are quoted for POSIX shells: left bare when they hold only characters no shell treats
/// specially, else in single quotes (`'it'\''s'`), and as `$'…'` (bash, zsh, ksh, POSIX.1-2024)
/// when they hold control characters or a backtick, so a command never spans lines and never
/// holds a backtick: messages quote commands in backticks. Positional arguments that start with
/// `-` are put after `--` (with every option before it), and option values that start with `-`
/// are joined to their option with `=`, so neither is read as an option.
@_spi(Inspection)
public struct ToolCommand: Sendable, CustomStringConvertible {
    /// The subcommand, such as `remove`.
    public var subcommand: String
    /// The positional arguments, in order.
    public var arguments: [String]
    /// The options, in order: a name without its dashes and its value (nil for a flag).
    public var options: [Option]

    /// An option and its value (nil for a flag).
    public struct Option: Sendable {
        public var name: String
        public var value: String?

        /// An option `--name value`, or the flag `--name` when `value` is nil.
        public init(_ name: String, _ value: String?) {
            self.name = name
            self.value = value
        }
    }

    /// A command `modelstore subcommand arguments… options…`.
    public init(_ subcommand: String, _ arguments: [String], options: [Option] = []) {
        self.subcommand = subcommand
        self.arguments = arguments
        self.options = options
    }

    /// `modelstore remove NAME KEY [--collection C] --root ROOT` for the record `key` (in
    /// `collection`) of the database whose folder is `databasePath` (`<root>/<name>`).
    public static func remove(databasePath: String, key: String, collection: String?) -> ToolCommand {
        let (root, name) = split(databasePath)
        let place = collection.map { [Option("collection", $0)] } ?? []
        return ToolCommand("remove", [name, key], options: place + [Option("root", root)])
    }

    /// The root and the name of the database whose folder is `path`.
    public static func split(_ path: String) -> (root: String, name: String) {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path = path.dropLast() }
        guard let slash = path.lastIndex(of: "/") else { return (".", String(path)) }
        let root = path[..<slash]
        return (root.isEmpty ? "/" : String(root), String(path[path.index(after: slash)...]))
    }

    /// Whether a shell can pass every argument: none holds a NUL byte, which no argument can.
    public var canBeTyped: Bool {
        !(arguments + options.compactMap(\.value)).contains { $0.utf8.contains(0) }
    }

    /// The command line, quoted for a shell.
    public var description: String {
        let renderedOptions = options.map { option -> String in
            guard let value = option.value else { return "--" + option.name }
            return value.hasPrefix("-")
                ? "--" + option.name + "=" + Self.quoted(value) : "--" + option.name + " " + Self.quoted(value)
        }
        let positionals = arguments.map(Self.quoted)
        let words =
            arguments.contains { $0.hasPrefix("-") }
            ? renderedOptions + ["--"] + positionals : positionals + renderedOptions
        return (["modelstore", subcommand] + words).joined(separator: " ")
    }

    /// `word` quoted for a shell (see the type's description).
    public static func quoted(_ word: String) -> String {
        if !word.isEmpty, word.unicodeScalars.allSatisfy(isPlain) { return word }
        if !word.unicodeScalars.contains(where: needsEscape) {
            return "'" + word.replacingAll("'", with: #"'\''"#) + "'"
        }
        var result = "$'"
        for scalar in word.unicodeScalars {
            switch scalar {
            case "\\": result += #"\\"#
            case "'": result += #"\'"#
            case "\n": result += #"\n"#
            case "\t": result += #"\t"#
            case "\r": result += #"\r"#
            case _ where needsEscape(scalar):
                for byte in String(scalar).utf8 { result += #"\x"# + hex(byte) }
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "'"
    }

    /// Characters no POSIX shell treats specially anywhere in a word.
    private static func isPlain(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "_", "-", ".", "/", ":", ",", "+", "=", "@", "%": true
        default: false
        }
    }

    /// Control characters (C0, DEL, C1), which would break the line or be invisible, and the
    /// backtick, with which messages delimit commands.
    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "`"
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}

extension String {
    /// The string with every `target` replaced, comparing Unicode scalars (not characters, so
    /// a quote followed by a combining mark is still found).
    fileprivate func replacingAll(_ target: Unicode.Scalar, with replacement: String) -> String {
        var result = ""
        for scalar in unicodeScalars {
            if scalar == target { result += replacement } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }
}
