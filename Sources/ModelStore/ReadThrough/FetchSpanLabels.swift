import Tracing

/// What the span around a read-through's fetch says about it.
///
/// Every fetch a read-through starts (a miss, a refresh-ahead, a fleet member's turn) runs
/// inside one `ModelStore.fetch` span of kind `client`, a child of the span that was current
/// where the fetch started, so a trace shows the upstream call under the request that caused
/// it. A fetch that throws records its error on the span. Spans are no-ops until the
/// application bootstraps a tracer (`InstrumentationSystem.bootstrap`), as FusionCache's are
/// until OpenTelemetry is configured.
struct FetchSpanLabels: Sendable {
    /// The span's name.
    static let operationName = "ModelStore.fetch"

    /// The key fetched, as the application wrote it.
    let key: String
    /// Its collection; nil for the store's own keys.
    let collection: String?
    /// The model type's name.
    let typeName: String
    /// Whether nobody waits for it (a refresh-ahead).
    let background: Bool

    /// Writes the labels as the span's attributes.
    func describe(_ span: any Span) {
        span.updateAttributes { attributes in
            attributes["modelstore.key"] = key
            if let collection { attributes["modelstore.collection"] = collection }
            attributes["modelstore.model"] = typeName
            attributes["modelstore.refresh_ahead"] = background
        }
    }
}
