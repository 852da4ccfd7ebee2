import Foundation
import ModelStoreTestSupport
import Testing

/// What the README says of the make targets: `make demo` and `make test` share one build, the
/// test run shows its progress and its slowest tests by their own time, and builds leave out
/// SwiftPM's warning about swift-distributed-tracing's CMakeLists.txt files. The scripts run
/// here against stand-ins for `swift` and for a test bundle that print what real runs would.
@Suite("Make targets")
struct MakeTargetTests {
    static let root = PackageRoot.url

    /// A temporary executable script `name` holding `body` (bash).
    static func script(_ name: String, in directory: TemporaryDirectory, _ body: String) throws -> URL {
        let url = directory.url.appendingPathComponent(name)
        try Data(("#!/usr/bin/env bash\n" + body).utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        return url
    }

    @Test("Every make target that builds, runs or tests this package uses one trait set, so they share one build")
    func oneTraitSetForEveryTarget() throws {
        let targets = ["demo", "build", "test", "test-quick", "test-redis"]
        let dryRun = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["make", "--no-print-directory", "-n", "-C", Self.root.path] + targets)
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        // The commands that build this package (the nested packages, after `cd`, have their own builds).
        let commands = dryRun.stdout.split(separator: "\n").map(String.init).filter { line in
            !line.hasPrefix("cd ")
                && (line.contains("run-tests") || line.contains(" build ") || line.contains(" run ")
                    || line.hasSuffix(" build"))
        }
        #expect(commands.count == targets.count, "\(dryRun.stdout)")
        let traits = commands.map { command in
            command.components(separatedBy: "--traits ").dropFirst().first?.split(separator: " ").first.map(String.init)
        }
        #expect(Set(traits) == ["Encryption"], "\(commands)")
    }

    /// A stand-in for a test bundle, as scripts/run-tests runs it: four suites, whose tests take
    /// the times their events say; one suite fails, one crashes.
    static func fakeTestBundle(in directory: TemporaryDirectory) throws -> URL {
        try script(
            "FakePackageTests.xctest", in: directory,
            #"""
            tests="Mod.Slow/long() Mod.Slow/short() Mod.Fast/quick() Mod.Broken/fails() Mod.Crash/dies()"
            if [ "$3" = --list-tests ]; then printf '%s\n' $tests; exit 0; fi
            filters=""
            while [ $# -gt 0 ]; do
                case $1 in
                    --filter) filters="$filters $2"; shift 2 ;;
                    --event-stream-output-path) out=$2; shift 2 ;;
                    *) shift ;;
                esac
            done
            record() { printf '{"kind":"test","payload":{"id":"%s","kind":"function","name":"t"},"version":0}\n' "$1" >>"$out"; }
            event() {
                printf '{"kind":"event","payload":{"instant":{"absolute":%s,"since1970":%s},"kind":"%s","messages":[],"testID":"%s"},"version":0}\n' \
                    "$2" "$((1000 + ${2%.*})).${2#*.}" "$1" "$3" >>"$out"
            }
            # run ID START END: a test that took END - START seconds, unless the filters (the whole
            # suite, "…/", or one regular expression per test) leave it out.
            run() {
                local name=${1#*/}
                name=${name%%(*}
                case $filters in *"/ "*|*/) ;; *) case $filters in *"$name"*) ;; *) return ;; esac ;; esac
                record "$1/T.swift:1:1"; event testStarted "$2" "$1/T.swift:1:1"; event testEnded "$3" "$1/T.swift:1:1"
                echo "✔ Test $name() passed after 0.1 seconds."
                count=$((count + 1))
            }
            count=0
            case $filters in
                *Slow*) run 'Mod.Slow/long()' 0.0 10.0; run 'Mod.Slow/short()' 10.0 11.0; sleep 0.5 ;;
                *Fast*) run 'Mod.Fast/quick()' 0.0 0.5 ;;
                *Broken*)
                    echo "✘ Test fails() recorded an issue at T.swift:3:5: Expectation failed: 1 == 2"
                    echo "✘ Test run with 1 test in 1 suite failed after 0.1 seconds with 1 issue."
                    exit 1 ;;
                *Crash*) echo "Fatal error: boom"; exit 134 ;;
            esac
            echo "✔ Test run with $count tests in 1 suite passed after 11.0 seconds."
            """#)
    }

    @Test("scripts/run-tests prints each suite as it ends with the tests done, and ranks tests by their own time")
    func runTestsShowsProgressAndOwnTimes() throws {
        let directory = TemporaryDirectory()
        var environment = ProcessInfo.processInfo.environment
        environment["TEST_BINARY"] = try Self.fakeTestBundle(in: directory).path
        environment["TEST_LOG"] = directory.url.appendingPathComponent("test-output.log").path
        let script = Self.root.appendingPathComponent("scripts/run-tests")
        let run = try ChildProcess.run(script, ["--traits", "Encryption", "--skip", "Nothing"], environment: environment)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let output = run.stdout
        for line in ["✔ Slow (", "✔ Fast (", "✘ Broken (", "✘ Crash ("] {
            #expect(output.contains(line), "\(output)")
        }
        #expect(output.contains("[5/5 tests]"), "\(output)")
        #expect(output.contains("✘ Test fails() recorded an issue at T.swift:3:5"), "\(output)")
        #expect(output.contains("The process of Mod.Crash ended before reporting its tests") && output.contains("boom"))
        let slowest = output.components(separatedBy: "Slowest tests").dropFirst().first?
            .split(separator: "\n").dropFirst().prefix(3).map(String.init) ?? []
        #expect(slowest == ["    10.00 s  Slow/long()", "     1.00 s  Slow/short()", "     0.50 s  Fast/quick()"], "\(output)")
        let summary = "✘ Test run with 5 tests in 4 suites failed after"
        #expect(output.contains(summary) && output.contains("with 1 issues and 1 suites whose process ended early."))
        let log = try String(contentsOf: directory.url.appendingPathComponent("test-output.log"), encoding: .utf8)
        #expect(log.split(separator: "\n").last?.hasPrefix(summary) == true)

        // --filter narrows the run to the tests it matches, in their suites' processes.
        let narrowed = try ChildProcess.run(script, ["--filter", "Slow/short"], environment: environment)
        #expect(narrowed.status == 0, "\(narrowed.stdout)")
        #expect(narrowed.stdout.contains("[1/1 tests]  ✔ Slow ("), "\(narrowed.stdout)")
        #expect(narrowed.stdout.contains("     1.00 s  Slow/short()") && !narrowed.stdout.contains("long()"))
    }

    @Test("scripts/quiet-swift leaves out the tracing package's CMakeLists.txt warnings, and nothing else")
    func quietSwiftFiltersOnlyTheTracingWarnings() throws {
        let directory = TemporaryDirectory()
        let checkouts = "/work/app/.build/checkouts/swift-distributed-tracing/Sources"
        let swift = try Self.script(
            "swift", in: directory,
            """
            echo "built $*"
            for module in Tracing Instrumentation; do
                echo "warning: 'swift-distributed-tracing': found 1 file(s) which are unhandled; explicitly declare them as resources or exclude from the target" >&2
                echo "    \(checkouts)/$module/CMakeLists.txt" >&2
            done
            echo "warning: 'other': found 1 file(s) which are unhandled; explicitly declare them as resources or exclude from the target" >&2
            echo "    /work/app/Sources/App/notes.txt" >&2
            exit 3
            """)
        let run = try ChildProcess.run(
            Self.root.appendingPathComponent("scripts/quiet-swift"), ["build", "--build-tests"],
            environment: ProcessInfo.processInfo.environment.merging(["SWIFT": swift.path]) { $1 })
        #expect(run.status == 3)
        #expect(run.stdout == "built build --build-tests\n")
        let stderr = run.stderr
        #expect(!stderr.contains("swift-distributed-tracing"), "\(stderr)")
        #expect(stderr.contains("'other': found 1 file(s)") && stderr.contains("notes.txt"), "\(stderr)")
    }
}
