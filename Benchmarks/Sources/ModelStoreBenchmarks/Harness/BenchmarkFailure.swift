/// A failure of the benchmark harness itself, with a message for the person running it.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
