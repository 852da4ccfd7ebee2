import CLevelDBBaseline
import Foundation
import GRDB

/// The facts about this machine and its software that a reader needs to judge the numbers.
struct MachineDescription {
    var processors: Int
    var cpuModel: String
    var memoryBytes: UInt64
    var operatingSystem: String
    var swiftVersion: String
    var levelDBVersion: String
    var sqliteVersion: String

    /// Describes the machine the process runs on.
    static func current() -> MachineDescription {
        MachineDescription(
            processors: ProcessInfo.processInfo.activeProcessorCount,
            cpuModel: cpuModel(),
            memoryBytes: ProcessInfo.processInfo.physicalMemory,
            operatingSystem: operatingSystem(),
            swiftVersion: swiftVersion(),
            levelDBVersion: "\(leveldb_major_version()).\(leveldb_minor_version())",
            sqliteVersion: (try? DatabaseQueue().read { try String.fetchOne($0, sql: "SELECT sqlite_version()") })
                .flatMap { $0 } ?? "unknown")
    }

    /// The description as a markdown list.
    var markdown: String {
        """
        - CPU: \(cpuModel), \(processors) processors (`nproc`)
        - RAM: \(String(format: "%.1f", Double(memoryBytes) / Double(1 << 30))) GiB
        - OS: \(operatingSystem)
        - Swift: \(swiftVersion)
        - LevelDB: \(levelDBVersion) (system library); SQLite \(sqliteVersion) (for GRDB 7.10.0)
        """
    }

    private static func cpuModel() -> String {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
        let line = info.split(separator: "\n").first { $0.hasPrefix("model name") }
        return line.flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
    }

    private static func operatingSystem() -> String {
        var system = utsname()
        uname(&system)
        func text<Field>(_ field: Field) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        let kernel = "\(text(system.sysname)) \(text(system.release)) \(text(system.machine))"
        guard let release = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8),
            let line = release.split(separator: "\n").first(where: { $0.hasPrefix("PRETTY_NAME=") })
        else { return kernel }
        let name = line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        return "\(name), \(kernel)"
    }

    /// The first line of `swift --version`, from the toolchain on the PATH.
    private static func swiftVersion() -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "--version"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return "unknown" }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? "unknown"
    }
}
