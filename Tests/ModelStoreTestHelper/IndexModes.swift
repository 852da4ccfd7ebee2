// Helper modes for the index crash tests (Tests/ModelStoreTests/Indexes/IndexCrashTests.swift):
//
//   index-write ROOT NAME SEED     open NAME, define CrashPost's indexes on the collection
//        "posts", print "ready", then forever set, remove and batch posts on keys p0...p199,
//        printing "ack OP" after each. The test kills the process with SIGKILL at a random moment.
//   index-build ROOT NAME COUNT    open NAME; if the collection "posts" is empty, write COUNT
//        posts without indexes and print "filled"; then define CrashPost's indexes, printing
//        "chunk N" after each chunk of their builds, and "built" at the end.
import Foundation
import ModelStore
import ModelStoreTestSupport

func runIndexMode(_ command: String, root: String, name: String, extra: [String]) throws -> Bool {
    switch command {
    case "index-write":
        let store = try ModelStore(name: name, policy: .never, configuration: configuration(root: root))
        let posts = store.collection("posts")
        try CrashPost.defineIndexes(on: posts)
        say("ready")
        var random = SeededGenerator(seed: UInt64(extra[0])!)
        var op = 0
        while true {
            op += 1
            let key = "p\(Int.random(in: 0..<200, using: &random))"
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                try posts.set(CrashPost(op: op, random: &random), forKey: key)
            case 5..<7:
                try posts.removeObject(forKey: key)
            case 7:
                try posts.removeObjects(withPrefix: "p1\(Int.random(in: 0..<10, using: &random))")
            default:
                try store.write { batch in
                    for _ in 0..<Int.random(in: 2...8, using: &random) {
                        let key = "p\(Int.random(in: 0..<200, using: &random))"
                        if Bool.random(using: &random) {
                            try batch.set(CrashPost(op: op, random: &random), forKey: key, in: posts)
                        } else {
                            batch.removeObject(forKey: key, in: posts)
                        }
                    }
                }
            }
            say("ack \(op)")
        }
    case "index-build":
        let store = try ModelStore(name: name, policy: .never, configuration: configuration(root: root))
        let posts = store.collection("posts")
        if try posts.count() == 0 {
            var random = SeededGenerator(seed: 26)
            let models = (0..<Int(extra[0])!).map { CrashPost(op: $0, random: &random) }
            try store.write { batch in
                for (index, model) in models.enumerated() { try batch.set(model, forKey: "p\(index)", in: posts) }
            }
            say("filled")
        }
        var chunks = 0
        try CrashPost.defineIndexes(on: posts) { _ in
            chunks += 1
            say("chunk \(chunks)")
        }
        say("built")
        return true
    default:
        return false
    }
}
