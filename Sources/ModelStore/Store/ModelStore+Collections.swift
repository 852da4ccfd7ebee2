extension ModelStore {
    /// The collection `name`: a key space of its own in this store's database, whose records
    /// expire by the store's policy.
    ///
    /// ```swift
    /// let users = store.collection("users")
    /// try users.set(user, forKey: "42")
    /// ```
    ///
    /// Cheap: no I/O, nothing is created until a record is written. An invalid name (not 1
    /// to 255 UTF-8 bytes, or holding NUL) is reported by each call on the collection.
    public func collection(_ name: String) -> Collection {
        Collection(store: self, name: name, policy: nil)
    }

    /// The collection `name`, whose records expire by `policy`: each record it writes
    /// carries that lifetime as its own deadline, so every store on this database (whatever
    /// its own policy) and every sweep honours it.
    ///
    /// ```swift
    /// let sessions = store.collection("sessions", policy: .highest)
    /// ```
    ///
    /// With `.never`, each record carries a flag saying it never expires: no store reading it,
    /// whatever its own policy, expires or sweeps it, and ``Entry/expiresAt`` is nil. Records
    /// written into the collection by a ``WriteBatch`` given only its name expire by the store's
    /// policy unless given a lifetime.
    ///
    /// The policy is recorded in the database for tools and other programs (see
    /// ``Collection/recordedPolicy()``). That costs one read the first time this process gives
    /// the collection a policy, and a write only when it differs from the one recorded; after
    /// that, creating the collection with the same policy does no I/O (a lookup in memory).
    /// Writes through the collection cost nothing more. An invalid name or policy records
    /// nothing (every call on the collection reports it).
    public func collection(_ name: String, policy: UpdatePolicy) -> Collection {
        let collection = Collection(store: self, name: name, policy: policy)
        if configuration.recordsPolicies, let space = try? collection.scope.checkedSpace {
            database.policies.record(policy, for: space, in: database, sync: configuration.syncWrites)
        }
        return collection
    }

    /// The names of the collections that hold at least one record, live or expired but not
    /// yet swept, sorted by their UTF-8 bytes. The default collection (the store's own keys)
    /// has no name and is not listed.
    ///
    /// ```swift
    /// for name in try store.collectionNames() { print(name, try store.collection(name).count()) }
    /// ```
    ///
    /// - Complexity: One seek per collection, not one per record: expired records are not
    ///   looked at, so a collection of only expired records is listed until a sweep removes them.
    public func collectionNames() throws -> [String] {
        let database = try scope.open()
        return try database.run { engine in
            let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
            var names: [String] = []
            var target: [UInt8] = [KeySpace.collectionMarker]
            while true {
                try iterator.seek(to: target)
                let found = try iterator.withCurrent { key, _ -> KeySpace? in
                    guard key.first == KeySpace.collectionMarker else { return nil }
                    return KeySpace.split(key)?.space
                }
                guard let found = found ?? nil, let name = found.collection else { break }
                names.append(name)
                // Past every key of this collection: the next seek lands on the next one.
                guard let next = KeyRange.successor(ofPrefix: found.prefix) else { break }
                target = next
            }
            // LevelDB orders collections by name length first (the length byte).
            return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        }
    }
}
