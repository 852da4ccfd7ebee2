import Foundation
import ModelStore
import ModelStoreTestSupport

/// `write-compressed ROOT NAME SAMPLES`: opens NAME with record compression (a dictionary
/// from SAMPLES records) and writes records 0, 1, 2, … until killed: single sets, and every
/// seventh operation a batch of three, every eleventh an import of two chunks of four. Prints
/// "ack N" once records 0...N are acknowledged (an import's chunk from its progress callback,
/// called after the chunk was committed), so the test kills it before, during and after the
/// dictionary's training.
func writeCompressed(root: String, name: String, samples: Int) throws {
    var configuration = configuration(root: root)
    configuration.recordCompression = .zstd(dictionarySampleCount: samples)
    let store = try ModelStore(name: name, policy: .never, configuration: configuration)
    var number = 0
    while true {
        if number % 11 == 10 {
            let first = number
            let records = (first..<(first + 8)).map { CompressibleRecord(number: $0) }
            try blocking {
                _ = try await store.importObjects(records, key: { "r\($0.number)" }, batchSize: 4) { progress in
                    say("ack \(first + progress.completed - 1)")
                }
            }
            number += 8
            continue
        }
        if number % 7 == 6 {
            let numbers = number..<(number + 3)
            try store.write { batch in
                for each in numbers { try batch.set(CompressibleRecord(number: each), forKey: "r\(each)") }
            }
            number += 3
        } else {
            try store.set(CompressibleRecord(number: number), forKey: "r\(number)")
            number += 1
        }
        say("ack \(number - 1)")
    }
}
