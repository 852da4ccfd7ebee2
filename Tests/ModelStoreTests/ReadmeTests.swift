import Foundation
import Testing

@Suite("README")
struct ReadmeTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The blocks of the quick-start demo marked `// README: name` … `// README: end`.
    static func demoBlocks() throws -> [String: String] {
        let source = try String(contentsOf: root.appendingPathComponent("Examples/QuickStart/main.swift"), encoding: .utf8)
        var blocks: [String: String] = [:]
        var current: (name: String, lines: [String])?
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "// README: end", let block = current {
                blocks[block.name] = block.lines.joined(separator: "\n")
                current = nil
            } else if trimmed.hasPrefix("// README: ") {
                current = (String(trimmed.dropFirst("// README: ".count)), [])
            } else if current != nil {
                current!.lines.append(String(line.dropFirst(4)))  // the demo indents blocks by 4
            }
        }
        return blocks
    }

    @Test("Every README code block taken from the demo appears verbatim, so the README's tour compiles")
    func tourMatchesDemo() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = try Self.demoBlocks()
        #expect(Set(blocks.keys) == ["basics", "import", "snapshot", "enumerate"])
        for (name, block) in blocks {
            #expect(readme.contains("```swift\n" + block + "\n```"), "README is missing the demo's \(name) block")
        }
    }
}
