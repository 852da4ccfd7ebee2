import Foundation

extension ChildProcess {
    /// What a run to completion printed and how it exited.
    public struct Output: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String

        /// Standard output's lines, without empty ones.
        public var lines: [String] {
            stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
        }

        /// Standard output parsed as JSON.
        public func json() throws -> Any {
            try JSONSerialization.jsonObject(with: Data(stdout.utf8), options: [.fragmentsAllowed])
        }

        /// Standard output decoded as `type`.
        public func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
            try JSONDecoder().decode(type, from: Data(stdout.utf8))
        }
    }
}
