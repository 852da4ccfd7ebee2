public import InMemoryTracing
import Instrumentation
import Tracing

/// The tracer every test of a process shares: swift-distributed-tracing's own in-memory tracer,
/// bootstrapped once (the system accepts one bootstrap per process), so tests can read the
/// spans ModelStore and ModelStoreRedis start. Tests find their own spans by a key no other
/// test uses, since every test's spans land here.
public enum TestTracer {
    /// The process's tracer; bootstrapped on first use.
    public static let shared: InMemoryTracer = {
        let tracer = InMemoryTracer()
        InstrumentationSystem.bootstrap(tracer)
        return tracer
    }()

    /// The finished spans named `operationName` whose `modelstore.key` attribute is `key`.
    public static func finishedSpans(_ operationName: String, key: String) -> [FinishedInMemorySpan] {
        shared.finishedSpans.filter { span in
            span.operationName == operationName && span.attributes.get("modelstore.key") == .string(key)
        }
    }
}
