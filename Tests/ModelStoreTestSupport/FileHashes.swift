public import Foundation

/// The name and a hash of the contents of every file under a folder (recursively, links not
/// followed), to prove a command changed nothing: compare two readings with `==`.
public struct FileHashes: Equatable, CustomStringConvertible {
    /// Each file's path relative to the folder, and the FNV-1a 64-bit hash of its bytes (a
    /// symbolic link's hash is of its target's path; a folder appears with hash 0; LevelDB's
    /// `LOCK` with its size, see below).
    public let files: [String: UInt64]

    /// Reads every file under `folder` now.
    public init(of folder: URL) {
        var files: [String: UInt64] = [:]
        let manager = FileManager.default
        var pending = [""]
        while let relative = pending.popLast() {
            let path = relative.isEmpty ? folder.path : folder.path + "/" + relative
            for entry in (try? manager.contentsOfDirectory(atPath: path)) ?? [] {
                let name = relative.isEmpty ? entry : relative + "/" + entry
                let full = folder.path + "/" + name
                let type = (try? manager.attributesOfItem(atPath: full))?[.type] as? FileAttributeType
                switch type {
                case .typeDirectory?:
                    files[name] = 0
                    pending.append(name)
                case .typeSymbolicLink?:
                    files[name] = Self.hash(Data(((try? manager.destinationOfSymbolicLink(atPath: full)) ?? "").utf8))
                case _ where entry == "LOCK":
                    // Never opened: LevelDB's lock is a POSIX record lock, which closing *any*
                    // descriptor of the file in the holding process drops (when that is the
                    // test's own process). Its size stands for its contents (LevelDB's is empty).
                    let size = (try? manager.attributesOfItem(atPath: full))?[.size] as? NSNumber
                    files[name] = size?.uint64Value ?? 0
                default:
                    files[name] = Self.hash((try? Data(contentsOf: URL(fileURLWithPath: full))) ?? Data())
                }
            }
        }
        self.files = files
    }

    /// The FNV-1a 64-bit hash of `data`.
    public static func hash(_ data: Data) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    /// The names, sorted, with what differs from `other` marked, for a failure message.
    public func difference(from other: FileHashes) -> String {
        let names = Set(files.keys).union(other.files.keys).sorted()
        return names.compactMap { name in
            switch (other.files[name], files[name]) {
            case let (before?, after?) where before == after: return nil
            case (nil, _?): return "+\(name)"
            case (_?, nil): return "-\(name)"
            default: return "~\(name)"
            }
        }.joined(separator: " ")
    }

    public var description: String { files.keys.sorted().joined(separator: " ") }
}
