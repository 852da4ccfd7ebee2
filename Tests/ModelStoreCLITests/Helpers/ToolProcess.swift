import Foundation
import ModelStoreTestSupport

/// The package's executables under test, run to completion through ``ChildProcess`` (the test
/// target depends on their targets, so SwiftPM builds them next to the tests).
enum ToolProcess {
    /// Runs `modelstore` with `arguments`.
    static func modelstore(_ arguments: [String]) throws -> ChildProcess.Output {
        try ChildProcess.run(try ChildProcess.executable(named: "modelstore"), arguments)
    }

    /// Runs `modelstore-import` with `arguments`.
    static func importJob(_ arguments: [String]) throws -> ChildProcess.Output {
        try ChildProcess.run(try ChildProcess.executable(named: "modelstore-import"), arguments)
    }
}
