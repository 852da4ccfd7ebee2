import Dispatch
import Logging

/// Training the database's compression dictionary, in the background.
extension OpenDatabase {
    /// Offers a new record's uncompressed model as a training sample; the write that completes
    /// the set schedules the training on the maintenance queue (the write itself never waits).
    func offerDictionarySample(_ payload: UnsafeRawBufferPointer, compression: RecordCompression) {
        guard let batch = dictionaries.offer(payload, sampleCount: compression.dictionarySampleCount) else { return }
        maintenance.async { [self] in trainDictionary(samples: batch.samples, sizes: batch.sizes) }
    }

    /// Samples the records already stored, on the maintenance queue, when a store opens the
    /// database with compression on and it has no dictionary: a database filled before the
    /// option was turned on gets its dictionary without waiting for new writes. Reads at most
    /// `compression.dictionarySampleCount` records.
    func sampleStoredRecords(compression: RecordCompression) {
        guard dictionaries.claimStoredRecordSampling() else { return }
        maintenance.async { [self] in
            var batch: (samples: [UInt8], sizes: [Int])? = nil
            do {
                let iterator = try engine.makeIterator(snapshot: nil, fillCache: false)
                try iterator.seekToFirst()
                var visited = 0
                while batch == nil, visited < compression.dictionarySampleCount, dictionaries.isCollecting {
                    let more = try iterator.withCurrent { key, value -> Bool in
                        guard key.first != KeySpace.systemMarker else { return false }
                        if let header = RecordHeader(parsing: value), !header.isPayloadCompressed, !header.isSealed {
                            batch = dictionaries.offer(
                                UnsafeRawBufferPointer(rebasing: value[header.length...]),
                                sampleCount: compression.dictionarySampleCount)
                        }
                        return true
                    }
                    guard more == true else { break }
                    visited += 1
                    try iterator.next()
                }
            } catch {
                // Writes keep offering samples; nothing is lost but time.
                logger.debug("Sampling stored records failed", metadata: ["database": "\(path)", "error": "\(error)"])
            }
            if let batch { trainDictionary(samples: batch.samples, sizes: batch.sizes) }
        }
    }

    /// Trains a dictionary on `samples`, stores it, and only then publishes it for writes.
    private func trainDictionary(samples: [UInt8], sizes: [Int]) {
        let id: UInt32
        do {
            id = try run { engine in try dictionaries.nextID(notNamedByRecordsIn: engine) }
        } catch {
            dictionaries.abandonTraining()
            logger.debug(
                "The database's records could not be read before training a compression dictionary",
                metadata: ["database": "\(path)", "error": "\(error)"])
            return
        }
        guard let trained = ZstdDictionary.train(samples: samples, sizes: sizes, capacity: RecordDictionaries.capacity),
            let dictionary = ZstdDictionary(id: id, bytes: trained)
        else {
            dictionaries.abandonTraining()
            logger.info(
                "No compression dictionary could be trained; records stay uncompressed until the database reopens",
                metadata: ["database": "\(path)", "samples": "\(sizes.count)"])
            return
        }
        let key = RecordDictionaries.key(id: dictionary.id)
        let value = RecordDictionaries.value(of: dictionary)
        do {
            // Synced, and returned before any record names it: LevelDB's log keeps writes in
            // order, so no record that names the dictionary can survive a crash without it.
            try commitSystemRecord(key: key, value: value, sync: true)
        } catch {
            dictionaries.abandonTraining()
            // Closed before the training finished: nothing went wrong, the next open samples again.
            if case .closed = error {
                logger.debug(
                    "The database closed before its compression dictionary was stored",
                    metadata: ["database": "\(path)"])
            } else {
                logger.warning(
                    "The compression dictionary could not be stored",
                    metadata: ["database": "\(path)", "error": "\(error)"])
            }
            return
        }
        dictionaries.publish(dictionary)
        logger.debug(
            "Trained a compression dictionary",
            metadata: ["database": "\(path)", "id": "\(dictionary.id)", "bytes": "\(dictionary.bytes.count)"])
    }
}
