import Foundation

// MARK: - Defining, building and dropping indexes

extension DefinedIndex {
    /// How the reason of an ``ModelStoreError/invalidName(name:reason:)`` for an index name starts.
    static let nameReasonPrefix = "the index name "
    /// The longest index name, in UTF-8 bytes.
    static let maximumNameLength = 255
    /// How many records a build indexes per chunk: each chunk holds the exclusive write gate
    /// while it decodes them, so writers wait a few milliseconds at most.
    static let buildChunkSize = 512

    static func validate(name: String) throws(ModelStoreError) {
        let length = name.utf8.count
        if length == 0 { throw .invalidName(name: name, reason: nameReasonPrefix + "is empty") }
        if length > maximumNameLength { throw .invalidName(name: name, reason: nameReasonPrefix + "is \(length) UTF-8 bytes") }
    }
}

extension Scope {
    /// Defines the index `name` of this scope's key space in this process, and builds it from
    /// the stored records when the database holds no built index of that name and version.
    func defineIndex<Model: Decodable>(
        _ name: String, of type: Model.Type, version: Int, progress: ((ModelStore.IndexBuildProgress) -> Void)?,
        indexer: @escaping @Sendable (Model) throws -> [IndexValue]
    ) throws -> ModelStore.IndexBuildReport {
        let database = try open()
        try DefinedIndex.validate(name: name)
        let started = ContinuousClock.now
        let key = IndexKeys.definitionKey(name: name, in: space)
        let space = space
        let reader = reader
        let path = database.path
        let sync = configuration.syncWrites
        // Read, decided and registered under the exclusive gate: every write after it carries
        // the index's entries, every write before it is a record the build will find.
        let defined = try database.commitExclusively { hold -> Result<(DefinedIndex, IndexDefinition), ModelStoreError> in
            var definition = try IndexDefinition.read(key: key, from: hold.engine, path: path)
            // The highest id the database ever gave out (see IndexIDFloor), and this process.
            let storedFloor = try IndexIDFloor.read(from: hold.engine)
            var floor = database.indexes.highestID
            switch storedFloor {
            case .id(let id): floor = max(floor, id)
            case .damaged: floor = max(floor, try IndexIDFloor.highestIDInSections(of: hold.engine))
            case .absent: break
            }
            let batch = LevelDBWriteBatch()
            // A definition of the format before values entries is rebuilt like a new version:
            // under a new id, in values entries, and its reverse entries cleared with its old id.
            if definition == nil || definition!.version != version || definition!.state == .dropped
                || definition!.format != IndexDefinition.format
            {
                var retired = definition?.retired ?? []
                if let old = definition, old.state != .dropped { retired.append(old.id) }
                // Returned, not thrown: damaged definitions refuse this index, not the database's writes.
                guard let (id, leftovers) = try Self.unusedIndexID(in: hold.engine, above: floor) else {
                    return .failure(.corrupted(
                        path: path,
                        message: "no index id is left: an index definition names the highest id (4,294,967,295), so the "
                            + "definitions are damaged; drop the database's indexes (dropIndex) or restore a backup"))
                }
                var new = IndexDefinition(
                    state: .building, id: id, version: version, typeName: String(describing: type))
                new.retired = retired + leftovers
                key.withUnsafeBytes { keyBytes in
                    new.value(key: key).withUnsafeBytes { batch.put(key: keyBytes, value: $0) }
                }
                definition = new
            }
            // Raised in the same batch as a new id's definition; or, for an index defined before
            // the record existed (or when it is damaged), before any section can name the id.
            if storedFloor != .id(max(floor, definition!.id)) {
                IndexIDFloor.key.withUnsafeBytes { floorKey in
                    IndexIDFloor.value(max(floor, definition!.id)).withUnsafeBytes { batch.put(key: floorKey, value: $0) }
                }
            }
            if batch.count > 0 { try hold.write(.batch(batch), ChangeList(), sync: sync) }
            let index = DefinedIndex(
                name: name, space: space, id: definition!.id, version: version, isBuilt: definition!.state == .built,
                reader: reader, type: type, indexer: indexer)
            database.indexes.register(index)
            try Self.recordStoredIDs(of: space, in: hold.engine, registry: database.indexes)
            return .success((index, definition!))
        }
        let (index, definition) = try defined.get()
        if !definition.retired.isEmpty { try clearRetired(key: key) }
        guard definition.state == .building else {
            return ModelStore.IndexBuildReport(
                indexed: 0, skipped: 0, wasAlreadyBuilt: true, wasCancelled: false, duration: ContinuousClock.now - started)
        }
        return try build(index, key: key, started: started, progress: progress)
    }

    /// Builds `index` in chunks from its definition's resume key until every record is indexed,
    /// the task is cancelled, or the definition changes under it.
    private func build(
        _ index: DefinedIndex, key: [UInt8], started: ContinuousClock.Instant,
        progress: ((ModelStore.IndexBuildProgress) -> Void)?
    ) throws -> ModelStore.IndexBuildReport {
        let database = try open()
        let space = space
        let path = database.path
        let sync = configuration.syncWrites
        var indexed = 0
        var skipped = 0
        while true {
            if Task.isCancelled {
                return ModelStore.IndexBuildReport(
                    indexed: indexed, skipped: skipped, wasAlreadyBuilt: false, wasCancelled: true,
                    duration: ContinuousClock.now - started)
            }
            let finished = try database.commitExclusively { hold -> Bool? in
                guard var definition = try IndexDefinition.read(key: key, from: hold.engine, path: path),
                    definition.id == index.id, definition.state != .dropped
                else { return nil }  // redefined or dropped meanwhile
                guard definition.state == .building else {
                    // Another definition of the same index (another open, another task) built
                    // the rest: this one, which may be the one registered, is built too.
                    Self.markBuilt(index, in: database.indexes)
                    return true
                }
                var work = IndexWork(engine: hold.engine, write: .batch(LevelDBWriteBatch()))
                let stored = database.indexes.maintained(in: space).stored
                let iterator = try hold.engine.makeIterator(snapshot: nil, fillCache: false)
                try iterator.seek(to: space.prefix + definition.resumeKey)
                let range = space.all
                var pastEnd = false
                var chunkIndexed = 0
                var chunkSkipped = 0
                let (seen, lastKey) = try iterator.scanForward(limit: DefinedIndex.buildChunkSize) { keyBytes, record in
                    if range.isPastEnd(keyBytes, reverse: false) {
                        pastEnd = true
                        return false
                    }
                    let key = space.key(fromPhysical: keyBytes)
                    guard let values = try index.values(ofRecord: record, key: key, keyBytes: keyBytes) else {
                        chunkSkipped += 1
                        // No part for this id, not even one an earlier index of the id left.
                        try work.update(
                            space: space, physicalKey: keyBytes, [(index.id, [])], after: .unchanged, stored: stored,
                            trustingStoredParts: false)
                        return true
                    }
                    chunkIndexed += 1
                    // A record whose section has a part for the index was written since the build
                    // began: its entries are put again from that part.
                    try work.update(
                        space: space, physicalKey: keyBytes, [(index.id, values)], after: .unchanged, stored: stored,
                        trustingStoredParts: false)
                    return true
                }
                let done = pastEnd || seen < DefinedIndex.buildChunkSize || lastKey == nil
                if done {
                    definition.state = .built
                    definition.resumeKey = []
                } else {
                    definition.resumeKey = Array(lastKey![space.prefix.count...]) + [0]
                }
                definition.indexed += chunkIndexed
                definition.skipped += chunkSkipped
                key.withUnsafeBytes { keyBytes in
                    definition.value(key: key).withUnsafeBytes { work.batch.put(key: keyBytes, value: $0) }
                }
                work.finish()
                try hold.write(.batch(work.batch), ChangeList(), sync: sync)
                // Under the gate, where no other definition can take the name meanwhile.
                if done { Self.markBuilt(index, in: database.indexes) }
                indexed += chunkIndexed
                skipped += chunkSkipped
                return done
            }
            guard let finished else {
                return ModelStore.IndexBuildReport(
                    indexed: indexed, skipped: skipped, wasAlreadyBuilt: false, wasCancelled: true,
                    duration: ContinuousClock.now - started)
            }
            progress?(ModelStore.IndexBuildProgress(indexed: indexed, skipped: skipped))
            if finished {
                return ModelStore.IndexBuildReport(
                    indexed: indexed, skipped: skipped, wasAlreadyBuilt: false, wasCancelled: false,
                    duration: ContinuousClock.now - started)
            }
        }
    }

    /// Marks `index` built, and the index of its name the registry holds if it has the same id:
    /// a second definition of the index, registered while this one's build ran, answers too.
    /// Under the exclusive write gate, after the definition was read built (or written so).
    private static func markBuilt(_ index: DefinedIndex, in registry: IndexRegistry) {
        index.markBuilt()
        if let registered = registry.index(named: index.name, in: index.space), registered.id == index.id {
            registered.markBuilt()
        }
    }

    /// Removes the index `name`: its definition in this process and in the database, and its
    /// entries (in chunks). Dropping an index that does not exist does nothing.
    func dropIndex(_ name: String) throws {
        let database = try open()
        try DefinedIndex.validate(name: name)
        let key = IndexKeys.definitionKey(name: name, in: space)
        let space = space
        let path = database.path
        let sync = configuration.syncWrites
        let exists = try database.commitExclusively { hold -> Bool in
            database.indexes.unregister(name, in: space)
            let definition: IndexDefinition?
            do {
                definition = try IndexDefinition.read(key: key, from: hold.engine, path: path)
            } catch {
                // A damaged definition: its entries cannot be found, only the definition goes.
                try key.withUnsafeBytes { try hold.write(.delete(key: $0), ChangeList(), sync: sync) }
                return false
            }
            guard var definition else { return false }
            if definition.state != .dropped {
                definition.retired.append(definition.id)
                definition.state = .dropped
                try key.withUnsafeBytes { keyBytes in
                    try definition.value(key: key).withUnsafeBytes { try hold.write(.put(key: keyBytes, value: $0), ChangeList(), sync: sync) }
                }
            }
            try Self.recordStoredIDs(of: space, in: hold.engine, registry: database.indexes)
            return true
        }
        if exists { try clearRetired(key: key) }
    }

    /// Removes the entries of the ids the definition under `key` retired, in chunks through the
    /// removal loop, then forgets them (and a dropped definition).
    private func clearRetired(key: [UInt8]) throws {
        let database = try open()
        let path = database.path
        let sync = configuration.syncWrites
        guard let retired = try database.run({ try IndexDefinition.read(key: key, from: $0, path: path) })?.retired else {
            return
        }
        for id in retired {
            for prefix in [IndexKeys.entryPrefix(id), IndexKeys.reversePrefix(id)] {
                let range = KeyRange(lowerBound: prefix, upperBound: KeyRange.successor(ofPrefix: prefix))
                try database.removeInChunks(range, sync: sync) { entryKey, _, chunk in chunk.remove(entryKey) }
            }
        }
        try database.commitExclusively { hold in
            guard var definition = try IndexDefinition.read(key: key, from: hold.engine, path: path) else { return }
            try key.withUnsafeBytes { keyBytes in
                if definition.state == .dropped {
                    try hold.write(.delete(key: keyBytes), ChangeList(), sync: sync)
                } else {
                    definition.retired.removeAll { retired.contains($0) }
                    try definition.value(key: key).withUnsafeBytes { try hold.write(.put(key: keyBytes, value: $0), ChangeList(), sync: sync) }
                }
            }
        }
    }

    /// Tells `registry` the ids of the current definitions the database holds for `space`;
    /// under the exclusive write gate, after registering or unregistering one of its indexes.
    private static func recordStoredIDs(of space: KeySpace, in engine: LevelDB, registry: IndexRegistry) throws {
        let prefix = IndexKeys.definitionPrefix(of: space)
        let range = KeyRange(lowerBound: prefix, upperBound: KeyRange.successor(ofPrefix: prefix))
        var ids = Set<UInt32>()
        let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
        try iterator.seek(to: prefix)
        while let next = try iterator.withCurrent({ key, value -> Bool in
            guard !range.isPastEnd(key, reverse: false) else { return false }
            // Only this space's own definitions: a name never holds the space's marker bytes
            // of another space, but the split says so exactly.
            if let (found, _) = IndexKeys.split(definitionKey: key), found == space,
                let definition = IndexDefinition(key: key, value: value), definition.state != .dropped
            {
                ids.insert(definition.id)
            }
            return true
        }), next {
            try iterator.next()
        }
        registry.setStoredIDs(ids, in: space)
    }

    /// An id no definition of the database uses, current or retired.
    /// An id above every id a definition names or retired, with no entry and no reverse entry,
    /// and the ids it passed over because entries of theirs are left (to be cleared as retired).
    /// Definitions alone do not say which ids are free: one lost to damage (dropped as it is) or
    /// to a repair leaves its entries, and a new index with its id would answer with them.
    /// Above `floor` too, the highest id this process registered: a dropped index's id is free
    /// once its entries are cleared, but a set or a build of this process may still hold it.
    /// The ids between the two that still hold entries (a damaged definition dropped as it was)
    /// are found by one walk over the keys, not id by id: a definition damaged to name a huge
    /// id would make an id-by-id walk endless.
    ///
    /// Nil when no id is left above them (only definitions damaged or forged to name the highest
    /// id get there).
    private static func unusedIndexID(in engine: LevelDB, above floor: UInt32) throws -> (id: UInt32, leftovers: [UInt32])? {
        let highestDefined = try highestDefinedIndexID(in: engine)
        var leftovers: [UInt32] = []
        if floor > highestDefined {
            let passedOver = (highestDefined + 1)...floor
            leftovers = Set(
                try idsHoldingKeys(of: IndexKeys.entryKind, in: passedOver, engine: engine)
                    + idsHoldingKeys(of: IndexKeys.reverseKind, in: passedOver, engine: engine)
            ).sorted()
        }
        var id = max(highestDefined, floor)
        while true {
            guard id < UInt32.max else { return nil }
            id += 1
            guard try holdsKeys(under: IndexKeys.entryPrefix(id), in: engine)
                || holdsKeys(under: IndexKeys.reversePrefix(id), in: engine)
            else { return (id, leftovers) }
            leftovers.append(id)
        }
    }

    /// The ids in `range` under which keys of `kind` (entries or reverse entries) exist: one
    /// seek per id found, past all of its keys.
    private static func idsHoldingKeys(of kind: UInt8, in range: ClosedRange<UInt32>, engine: LevelDB) throws -> [UInt32] {
        var found: [UInt32] = []
        var next = range.lowerBound
        let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
        while true {
            try iterator.seek(to: [KeySpace.systemMarker, kind] + IndexKeys.idBytes(next))
            var id: UInt32?
            _ = try iterator.scanForward(limit: 1) { key, _ in
                if key.count >= 6, key[0] == KeySpace.systemMarker, key[1] == kind {
                    id = UInt32(key[2]) << 24 | UInt32(key[3]) << 16 | UInt32(key[4]) << 8 | UInt32(key[5])
                }
                return false
            }
            guard let id, id <= range.upperBound else { return found }
            found.append(id)
            guard id < range.upperBound else { return found }
            next = id + 1
        }
    }

    private static func holdsKeys(under prefix: [UInt8], in engine: LevelDB) throws -> Bool {
        let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
        try iterator.seek(to: prefix)
        var found = false
        _ = try iterator.scanForward(limit: 1) { key, _ in
            found = key.starts(with: prefix)
            return false
        }
        return found
    }

    private static func highestDefinedIndexID(in engine: LevelDB) throws -> UInt32 {
        var highest: UInt32 = 0
        let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
        try iterator.seek(to: IndexKeys.allDefinitions.lowerBound)
        while let next = try iterator.withCurrent({ key, value -> Bool in
            guard !IndexKeys.allDefinitions.isPastEnd(key, reverse: false) else { return false }
            if let definition = IndexDefinition(key: key, value: value) {
                highest = max(highest, definition.id, definition.retired.max() ?? 0)
            }
            return true
        }), next {
            try iterator.next()
        }
        return highest
    }

    /// The definitions of every index of the database, for tools.
    static func indexDefinitions(in engine: LevelDB) throws -> [(space: KeySpace, name: String, definition: IndexDefinition?)] {
        var found: [(KeySpace, String, IndexDefinition?)] = []
        let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
        try iterator.seek(to: IndexKeys.allDefinitions.lowerBound)
        while let next = try iterator.withCurrent({ key, value -> Bool in
            guard !IndexKeys.allDefinitions.isPastEnd(key, reverse: false) else { return false }
            if let (space, name) = IndexKeys.split(definitionKey: key) {
                found.append((space, name, IndexDefinition(key: key, value: value)))
            }
            return true
        }), next {
            try iterator.next()
        }
        return found
    }
}
