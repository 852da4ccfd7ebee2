/// A decoded model as the object cache keeps it: in a box of the model's own type, with that type.
///
/// A hit compares the type and reads the model out of the box; a model kept as `Any` went through
/// the runtime's general cast on every hit (about a tenth of a hit's instructions), and it took
/// conversions no hit needs: a model cached as one type is served only as that type, and a read
/// as another decodes the record, as a read of a model that is not cached does.
@usableFromInline
struct CachedModel {
    @usableFromInline let box: AnyObject
    @usableFromInline let type: Any.Type

    init<Model>(_ model: Model) {
        box = ModelBox(model)
        type = Model.self
    }

    /// The model, if it is a `Model`.
    @inlinable
    func model<Model>(of _: Model.Type) -> Model? {
        guard type == Model.self else { return nil }
        return unsafeDowncast(box, to: ModelBox<Model>.self).model
    }
}

/// A ``CachedModel`` read in place, its box not retained: valid only while the cache entry that
/// holds it cannot change (while its reader is counted in the shard, or holds the shard's mutex:
/// ``ObjectCache/withItem(_:in:_:)``). Taking the
/// model copies it (retaining its own fields) without a write to the box's reference count, which
/// two threads hitting one entry would otherwise hand back and forth.
@usableFromInline
struct UnretainedCachedModel {
    @usableFromInline let box: Unmanaged<AnyObject>
    @usableFromInline let type: Any.Type

    @inline(__always)
    init(_ model: CachedModel) {
        box = Unmanaged.passUnretained(model.box)
        type = model.type
    }

    /// A copy of the model, if it is a `Model`.
    @inlinable
    func model<Model>(of _: Model.Type) -> Model? {
        guard type == Model.self else { return nil }
        return box._withUnsafeGuaranteedRef { unsafeDowncast($0, to: ModelBox<Model>.self).model }
    }
}

/// The box of a ``CachedModel``.
@usableFromInline
final class ModelBox<Model> {
    @usableFromInline let model: Model

    init(_ model: Model) {
        self.model = model
    }
}
