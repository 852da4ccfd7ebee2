import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking  // URLSession lives here on Linux
#endif
import IntegrationTestSupport
import ModelStore
import Testing
import UserAPI
import UserClient
import UserServer

/// Runs the user server and the client for real, on loopback: the client reads through
/// ModelStore's read-through API, the server answers with ETag, max-age, 304 and 404.
@Suite struct ReadThroughTests {
    @Test func freshRecordIsServedWithoutARequest() async throws {
        let harness = try await Harness.start()
        let first = try #require(try await harness.client.user("ada"))
        #expect(first.name == "Ada Lovelace")
        #expect(harness.server.counters.requests.value == 1)

        harness.clock.advance(by: TimeInterval(Harness.maxAge) - 1)
        #expect(try await harness.client.user("ada") == first)
        #expect(harness.server.counters.requests.value == 1)
        await harness.tearDown()
    }

    @Test func serverMaxAgeSetsTheRecordsExpiry() async throws {
        let harness = try await Harness.start()
        let fetchedAt = harness.clock.now
        _ = try await harness.client.user("ada")
        let entry = try #require(try harness.entry("ada"))
        // The server's max-age (60 s), not options.lifetime (an hour).
        let expiresAt = try #require(entry.expiresAt)
        #expect(abs(expiresAt.timeIntervalSince(fetchedAt) - TimeInterval(Harness.maxAge)) < 0.01)
        #expect(try entry.metadata(HTTPInfo.self) == HTTPInfo(etag: entry.value.etag))
        await harness.tearDown()
    }

    @Test func expiredRecordIsRevalidatedAndA304RestartsItsLifetimeKeepingTheRecord() async throws {
        let harness = try await Harness.start()
        let first = try #require(try await harness.client.user("ada"))
        let stored = try #require(try harness.entry("ada"))

        harness.clock.advance(by: TimeInterval(Harness.maxAge) + 1)
        let revalidatedAt = harness.clock.now
        #expect(try await harness.client.user("ada") == first)
        #expect(harness.server.counters.requests.value == 2)
        #expect(harness.server.counters.notModified.value == 1)  // It sent If-None-Match with the ETag.

        let kept = try #require(try harness.entry("ada"))
        #expect(!kept.isExpired)
        #expect(kept.value == stored.value)
        #expect(kept.byteCount == stored.byteCount)  // The stored bytes were kept, not re-encoded.
        #expect(try kept.metadata(HTTPInfo.self) == HTTPInfo(etag: first.etag))
        let expiresAt = try #require(kept.expiresAt)
        #expect(abs(expiresAt.timeIntervalSince(revalidatedAt) - TimeInterval(Harness.maxAge)) < 0.01)

        // The new lifetime holds: no request until it is over.
        harness.clock.advance(by: TimeInterval(Harness.maxAge) - 1)
        _ = try await harness.client.user("ada")
        #expect(harness.server.counters.requests.value == 2)
        await harness.tearDown()
    }

    @Test func userChangedOnTheServerComesBackWithA200AndTheNewValue() async throws {
        let harness = try await Harness.start()
        let first = try #require(try await harness.client.user("ada"))
        let changed = try await harness.server.users.update("ada", name: "Ada King", email: "ada.king@example.com")
        #expect(changed.etag != first.etag)

        harness.clock.advance(by: TimeInterval(Harness.maxAge) + 1)
        let fetched = try #require(try await harness.client.user("ada"))
        #expect(fetched == changed)
        #expect(harness.server.counters.requests.value == 2)
        #expect(harness.server.counters.notModified.value == 0)
        #expect(try harness.entry("ada")?.metadata(HTTPInfo.self) == HTTPInfo(etag: changed.etag))
        await harness.tearDown()
    }

    @Test func unknownUserIsNilAndTheAnswerIsRememberedForNotFoundLifetime() async throws {
        let harness = try await Harness.start()
        #expect(try await harness.client.user("nobody") == nil)
        #expect(harness.server.counters.notFound.value == 1)

        harness.clock.advance(by: Harness.notFoundLifetime - 1)
        #expect(try await harness.client.user("nobody") == nil)
        #expect(harness.server.counters.requests.value == 1)

        harness.clock.advance(by: 2)
        #expect(try await harness.client.user("nobody") == nil)
        #expect(harness.server.counters.requests.value == 2)
        await harness.tearDown()
    }

    @Test func serverDownServesTheStaleValueWithinStaleIfError() async throws {
        let harness = try await Harness.start()
        let original = try #require(try await harness.client.user("ada"))
        await harness.server.stop()

        harness.clock.advance(by: TimeInterval(Harness.maxAge) + Harness.staleIfError - 1)
        #expect(try await harness.client.user("ada") == original)
        // A failed fetch never removes the record: it is still there for the next read.
        #expect(try await harness.client.user("ada") == original)
        #expect(harness.server.counters.requests.value == 1)
        await harness.tearDown()
    }

    @Test func serverDownPastStaleIfErrorThrowsTheFetchError() async throws {
        let harness = try await Harness.start()
        _ = try await harness.client.user("ada")
        await harness.server.stop()

        harness.clock.advance(by: TimeInterval(Harness.maxAge) + Harness.staleIfError + 1)
        await #expect(throws: (any Error).self) {
            try await harness.client.user("ada")
        }
        await harness.tearDown()
    }

    @Test func serverDownWithNothingStoredThrows() async throws {
        let harness = try await Harness.start()
        await harness.server.stop()
        await #expect(throws: (any Error).self) {
            try await harness.client.user("ada")
        }
        await harness.tearDown()
    }

    @Test func concurrentLookupsOfOneKeyMakeOneRequest() async throws {
        let harness = try await Harness.start()
        let client = harness.client
        let users = try await withThrowingTaskGroup(of: User?.self) { group in
            for _ in 0..<10 {
                group.addTask { try await client.user("grace") }
            }
            return try await group.reduce(into: [User?]()) { $0.append($1) }
        }
        #expect(users.count == 10)
        #expect(Set(users.compactMap { $0?.name }) == ["Grace Hopper"])
        #expect(harness.server.counters.requests.value == 1)
        await harness.tearDown()
    }
}

/// The server's side: its users live behind Hummingbird's PersistDriver API, in a ModelStore
/// database through ModelStorePersistDriver.
@Suite struct UserServerTests {
    @Test func usersChangedThroughThePersistDriverSurviveARestart() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("ServerFetchedTests-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await UserServer.start(directory: directory)
        let changed = try await first.users.update("ada", name: "Ada King", email: "ada.king@example.com")
        try await first.users.update("alan", name: "Alan Turing", email: "alan@example.com")
        await first.stop()

        let second = try await UserServer.start(directory: directory)
        #expect(try await second.users.user("ada") == changed)  // Not re-seeded over the change.
        #expect(try await second.users.user("alan")?.revision == 1)
        #expect(try await second.users.user("grace")?.name == "Grace Hopper")
        #expect(try await second.users.user("nobody") == nil)
        await second.stop()
    }
}

extension UserServerTests {
    @Test func putChangesTheUserAndItsETag() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("ServerFetchedTests-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await UserServer.start(directory: directory)
        var request = URLRequest(url: URL(string: server.baseURL + UserAPI.userPath("ada"))!)
        request.httpMethod = "PUT"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"name": "Ada King", "email": "ada.king@example.com"}"#.utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let changed = try JSONDecoder().decode(User.self, from: data)
        #expect(changed == User(id: "ada", name: "Ada King", email: "ada.king@example.com", revision: 2))
        #expect(try await server.users.user("ada") == changed)
        await server.stop()
    }
}
