import Testing

/// The expected contents of a crash-test database, built from what the helper reported.
///
/// The helper prints `begin OP ...` before each operation and `ack OP` after it returned.
/// Acknowledged operations must all be present after the kill; the one operation that
/// began but was not acknowledged may be present or not, but only as a whole.
public struct CrashModel {
    /// Key -> operation number of the record stored under it.
    public typealias State = [String: Int]

    /// One acknowledged-or-not write: stores `CrashRecord(op:)` under `sets` and removes
    /// `removals`, atomically (a single set, a removal, a batch, or one import chunk).
    public struct Operation: Equatable {
        public var op: Int
        public var kind: String
        public var sets: [String] = []
        public var removals: [String] = []

        public func apply(to state: inout State) {
            for key in sets { state[key] = op }
            for key in removals { state[key] = nil }
        }
    }

    /// The keys the helper's `write-mixed` mode writes.
    public static let keys = (0..<64).map { "m\($0)" }

    public var acknowledged: [Operation] = []
    public var inFlight: Operation?

    /// Parses the helper's output lines.
    public init(lines: [String]) throws {
        var begun: [Int: Operation] = [:]
        var acks = Set<Int>()
        for line in lines {
            let parts = line.split(separator: " ")
            switch parts.first {
            case "begin":
                let op = Int(parts[1])!
                func keys(_ index: Int) -> [String] {
                    parts[index] == "-" ? [] : parts[index].split(separator: ",").map(String.init)
                }
                let kind = String(parts[2])
                switch kind {
                case "set", "import": begun[op] = Operation(op: op, kind: kind, sets: keys(3))
                case "del", "delmany": begun[op] = Operation(op: op, kind: kind, removals: keys(3))
                case "batch": begun[op] = Operation(op: op, kind: kind, sets: keys(3), removals: keys(4))
                default: Issue.record("unknown operation in \(line)")
                }
            case "ack":
                acks.insert(Int(parts[1])!)
            case "ready":
                break
            default:
                Issue.record("unexpected helper output: \(line)")
            }
        }
        for op in begun.keys.sorted() {
            let operation = begun[op]!
            if acks.contains(op) {
                #expect(inFlight == nil, "operation \(op) was acknowledged after an unacknowledged one")
                acknowledged.append(operation)
            } else {
                inFlight = operation
            }
        }
    }

    /// The states the database may be in after the kill, given its state before.
    public func allowedStates(from before: State) -> [State] {
        var state = before
        for operation in acknowledged { operation.apply(to: &state) }
        guard let inFlight else { return [state] }
        var withInFlight = state
        inFlight.apply(to: &withInFlight)
        return [state, withInFlight]
    }

    public var lastOp: Int? { inFlight?.op ?? acknowledged.last?.op }

    /// How many acknowledged operations of each kind.
    public var kinds: [String: Int] {
        acknowledged.reduce(into: [:]) { $0[$1.kind, default: 0] += 1 }
    }
}
