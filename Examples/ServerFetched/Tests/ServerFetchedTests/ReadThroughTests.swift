import Foundation
import Testing
import UserAPI
import UserClient
import UserServer

/// Runs the user server and the caching client for real, on loopback.
@Suite struct ReadThroughTests {
    @Test func firstReadFetchesFromTheServerAndSecondIsServedFromTheStore() async throws {
        let harness = try await Harness.start()
        let first = try await harness.client.user("ada")
        #expect(first.source == .origin)
        #expect(first.value.name == "User ada")
        #expect(harness.server.requests.value == 1)

        let second = try await harness.client.user("ada")
        #expect(second.source == .store)
        #expect(second.value == first.value)
        #expect(harness.server.requests.value == 1)
        await harness.tearDown()
    }

    @Test func recordPastItsLifetimeIsFetchedAgain() async throws {
        let harness = try await Harness.start()
        let first = try await harness.client.user("ada")

        harness.clock.advance(by: Harness.timeToLive - 1)
        #expect(try await harness.client.user("ada").source == .store)
        #expect(harness.server.requests.value == 1)

        harness.clock.advance(by: 1)
        let refetched = try await harness.client.user("ada")
        #expect(refetched.source == .origin)
        #expect(refetched.value.revision > first.value.revision)
        #expect(harness.server.requests.value == 2)
        #expect(try await harness.client.user("ada").source == .store)
        await harness.tearDown()
    }

    @Test func concurrentLookupsOfANewKeyCauseOneFetch() async throws {
        let harness = try await Harness.start()
        let client = harness.client
        let users = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<10 {
                group.addTask { try await client.user("grace").value.revision }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(users.count == 10)
        #expect(Set(users) == [1])
        #expect(harness.server.requests.value == 1)
        await harness.tearDown()
    }

    @Test func staleReadFallsBackToTheOldRecordWhenTheServerIsDown() async throws {
        let harness = try await Harness.start()
        let original = try await harness.client.user("ada").value
        await harness.server.stop()
        harness.clock.advance(by: Harness.timeToLive + 1)

        let stale = try await harness.client.user("ada", allowingStale: true)
        #expect(stale.source == .stale)
        #expect(stale.value == original)

        await #expect(throws: (any Error).self) {
            try await harness.client.user("ada")
        }
        // A failed normal read must not throw the stale copy away.
        #expect(try await harness.client.user("ada", allowingStale: true).value == original)
        #expect(harness.server.requests.value == 1)
        await harness.tearDown()
    }

    @Test func staleReadOfAKeyNeverStoredStillThrows() async throws {
        let harness = try await Harness.start()
        await harness.server.stop()
        await #expect(throws: (any Error).self) {
            try await harness.client.user("nobody", allowingStale: true)
        }
        await harness.tearDown()
    }
}
