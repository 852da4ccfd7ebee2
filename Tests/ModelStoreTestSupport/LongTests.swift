public import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether this run includes the long tests: crash rounds with kill -9, soak and fuzz loops,
/// million-record imports. `make test` (and CI) runs them; `make test-quick` sets
/// `MODELSTORE_QUICK=1` and leaves them out, for a run in seconds while iterating.
public enum TestScope {
    /// False when the environment variable `MODELSTORE_QUICK` is set to anything but `0`.
    public static let includesLongTests: Bool = {
        guard let value = getenv("MODELSTORE_QUICK") else { return true }
        return String(cString: value) == "0"
    }()
}

extension Trait where Self == ConditionTrait {
    /// Marks a long crash, soak or fuzz test: it runs in `make test`, not in `make test-quick`.
    public static var long: Self {
        .enabled(if: TestScope.includesLongTests, "a long test: `make test` runs it, `make test-quick` does not")
    }
}
