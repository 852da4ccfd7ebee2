@_spi(Inspection) import ModelStore

/// The commands the tool's messages advise, quoted for a shell by the library's
/// ``ToolCommand`` (which the library's own messages use too).
extension ToolCommand {
    /// `modelstore keys NAME [--collection C] --root ROOT`.
    static func keys(_ name: String, collection: String?, root: String) -> ToolCommand {
        ToolCommand(
            "keys", [name], options: (collection.map { [Option("collection", $0)] } ?? []) + [Option("root", root)])
    }

    /// `modelstore list --root ROOT`.
    static func list(root: String) -> ToolCommand {
        ToolCommand("list", [], options: [Option("root", root)])
    }
}
