// A small program the tests run as a second process, to check what ModelStore does when
// another process holds a database or dies in the middle of writing.
//
//   ModelStoreTestHelper hold ROOT NAME     open NAME, store "holder" -> 1, print "ready",
//                                           keep it open until standard input closes
//   ModelStoreTestHelper open ROOT NAME     try to open NAME; print "ok" or the error case
//   ModelStoreTestHelper race-open ROOT NAME COUNT START
//                                           print "ready", wait until standard input closes,
//                                           then open NAME-0 ... NAME-(COUNT-1), name i at
//                                           START + i * 20 ms (seconds since 1970), and print
//                                           each outcome ("ok" or the error case) on one line
import Foundation
import ModelStore

/// Writes a line to standard output at once (unbuffered, so the test sees it immediately).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func configuration(root: String) -> ModelStore.Configuration {
    var configuration = ModelStore.Configuration()
    configuration.directory = URL(fileURLWithPath: root, isDirectory: true)
    return configuration
}

func caseName(_ error: any Error) -> String {
    guard let error = error as? ModelStoreError else { return "unexpected: \(error)" }
    return Mirror(reflecting: error).children.first?.label ?? "\(error)"
}

let arguments = CommandLine.arguments
guard arguments.count >= 4 else {
    FileHandle.standardError.write(Data("usage: ModelStoreTestHelper hold|open ROOT NAME\n".utf8))
    exit(64)
}
let (command, root, name) = (arguments[1], arguments[2], arguments[3])

switch command {
case "hold":
    do {
        let store = try ModelStore(name: name, policy: .never, configuration: configuration(root: root))
        try store.set(1, forKey: "holder")
        say("ready")
        _ = FileHandle.standardInput.readDataToEndOfFile()
        try store.close()
    } catch {
        say(caseName(error))
        exit(1)
    }
case "open":
    do {
        let store = try ModelStore(name: name, policy: .never, configuration: configuration(root: root))
        try store.close()
        say("ok")
    } catch {
        say(caseName(error))
    }
case "race-open":
    // Opens NAME-0 ... NAME-(COUNT-1) one after another, so that helpers started together
    // keep racing on each new name, and prints the outcome of each open on one line.
    let count = arguments.count > 4 ? Int(arguments[4]) ?? 1 : 1
    say("ready")
    _ = FileHandle.standardInput.readDataToEndOfFile()
    // Every helper starts name i at the same moment of the wall clock, START + i * 20 ms, so
    // they stay in step however unevenly the system scheduled them before.
    let start = arguments.count > 5 ? Double(arguments[5]) ?? 0 : 0
    var outcomes: [String] = []
    for index in 0..<count {
        let wait = start + Double(index) * 0.02 - Date().timeIntervalSince1970
        if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
        do {
            let store = try ModelStore(
                name: "\(name)-\(index)", policy: .never, configuration: configuration(root: root))
            try store.close()
            outcomes.append("ok")
        } catch {
            outcomes.append(caseName(error))
        }
    }
    say(outcomes.joined(separator: " "))
default:
    // More modes, for the reliability tests, live in ReliabilityModes.swift.
    guard runReliabilityMode(command, root: root, name: name, extra: Array(arguments.dropFirst(4)))
        || runEncryptionMode(command, root: root, name: name, extra: Array(arguments.dropFirst(4)))
        || runEvictionMode(command, root: root, name: name, extra: Array(arguments.dropFirst(4)))
    else {
        FileHandle.standardError.write(Data("unknown command \(command)\n".utf8))
        exit(64)
    }
}
