import CoreMetrics

/// The read-through counters of one open database, one ``ReadThroughMetrics`` per collection,
/// each created the first time it is asked for and then kept: counters are created once per
/// collection, never per call.
///
/// A ``ModelStore/Collection`` asks once, when it is made, and keeps the answer, so its
/// read-through hits take no lock of this registry's; the default collection's counters are a
/// stored property.
final class ReadThroughMetricsByCollection: Sendable {
    /// The default collection's counters (`collection=""`).
    let storeMetrics: ReadThroughMetrics

    private let database: String
    private let factory: (any MetricsFactory)?
    private let named = Locked<[String: ReadThroughMetrics]>([:])

    init(database: String, factory: (any MetricsFactory)?) {
        self.database = database
        self.factory = factory
        storeMetrics = ReadThroughMetrics(database: database, collection: nil, factory: factory)
    }

    /// The counters of `space`'s collection, created on first use.
    func metrics(for space: KeySpace) -> ReadThroughMetrics {
        guard let name = space.collection else { return storeMetrics }
        return named.withLock { named in
            if let metrics = named[name] { return metrics }
            let metrics = ReadThroughMetrics(database: database, collection: name, factory: factory)
            named[name] = metrics
            return metrics
        }
    }
}
