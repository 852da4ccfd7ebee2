import Foundation
import Testing
@testable import ModelStore

@Suite("Read-through fetching and stale reads")
struct ReadThroughTests {
    /// Counts fetches and can be told to fail, like an API client.
    final class FakeAPI: @unchecked Sendable {
        // @unchecked: guarded by `lock`.
        private let lock = NSLock()
        private var calls = 0
        private var failing = false

        var fetchCount: Int {
            lock.lock(); defer { lock.unlock() }
            return calls
        }

        func setFailing(_ value: Bool) {
            lock.lock(); defer { lock.unlock() }
            failing = value
        }

        func fetchUser(_ name: String, delay: Duration = .zero) async throws -> User {
            let shouldFail: Bool = {
                lock.lock(); defer { lock.unlock() }
                calls += 1
                return failing
            }()
            if delay > .zero { try await Task.sleep(for: delay) }
            if shouldFail { throw URLError(.notConnectedToInternet) }
            return User.sample(name)
        }
    }

    @Test("A miss fetches and stores; a fresh hit does not fetch; an expired record is fetched again")
    func fetchOnMissAndExpiry() async throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .high)
        let api = FakeAPI()
        #expect(try await store.object(User.self, forKey: "u") { try await api.fetchUser("ada") } == User.sample("ada"))
        #expect(api.fetchCount == 1)
        #expect(try store.object(User.self, forKey: "u") == User.sample("ada"))  // it was stored
        #expect(try await store.object(User.self, forKey: "u") { try await api.fetchUser("bob") } == User.sample("ada"))
        #expect(api.fetchCount == 1)
        fixture.clock.advance(by: 60)
        #expect(try await store.object(User.self, forKey: "u") { try await api.fetchUser("bob") } == User.sample("bob"))
        #expect(api.fetchCount == 2)
    }

    @Test("Concurrent requests for one key trigger one fetch")
    func coalescing() async throws {
        let store = try Fixture().open()
        let api = FakeAPI()
        let results = try await withThrowingTaskGroup(of: User.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    try await store.object(User.self, forKey: "u") {
                        try await api.fetchUser("ada", delay: .milliseconds(100))
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 10)
        #expect(results.allSatisfy { $0 == User.sample("ada") })
        #expect(api.fetchCount == 1)
    }

    @Test("A failed fetch reaches every waiter, and the next call fetches again")
    func failedFetch() async throws {
        let store = try Fixture().open()
        let api = FakeAPI()
        api.setFailing(true)
        await #expect(throws: URLError.self) {
            try await store.object(User.self, forKey: "u") { try await api.fetchUser("ada") }
        }
        api.setFailing(false)
        #expect(try await store.object(User.self, forKey: "u") { try await api.fetchUser("ada") } == User.sample("ada"))
        #expect(api.fetchCount == 2)
    }

    @Test("With staleIfError an expired record is served when the fetch fails; without it the error is thrown")
    func staleIfError() async throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .high)
        let api = FakeAPI()
        _ = try await store.object(User.self, forKey: "u") { try await api.fetchUser("ada") }
        fixture.clock.advance(by: 120)
        api.setFailing(true)
        await #expect(throws: URLError.self) {
            try await store.object(User.self, forKey: "u") { try await api.fetchUser("x") }
        }
        // The failed fetch above kept the expired record, so a stale read still finds it.
        let stale = try await store.object(User.self, forKey: "u", staleIfError: true) { try await api.fetchUser("x") }
        #expect(stale == User.sample("ada"))
    }

    @Test("A per-record lifetime applies to fetched records")
    func fetchedLifetime() async throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .never)
        _ = try await store.object(User.self, forKey: "u", expiresAfter: 5) { User.sample() }
        #expect(try store.entry(User.self, forKey: "u")?.expiresAt == fixture.clock.now.addingTimeInterval(5))
    }

    @Test("includingExpired returns an expired record marked as such, without removing it")
    func includingExpired() throws {
        let fixture = Fixture()
        let store = try fixture.open(policy: .highest)
        try store.set(User.sample(), forKey: "u")
        let fresh = try #require(try store.entry(User.self, forKey: "u", includingExpired: true))
        #expect(fresh.isExpired == false)
        fixture.clock.advance(by: 10)
        let stale = try #require(try store.entry(User.self, forKey: "u", includingExpired: true))
        #expect(stale.isExpired)
        #expect(stale.value == User.sample())
        #expect(try store.entry(User.self, forKey: "u", includingExpired: true) != nil)  // still there
        #expect(try store.entry(User.self, forKey: "u", includingExpired: false) == nil)  // a normal read purges
        #expect(try store.entry(User.self, forKey: "u", includingExpired: true) == nil)
    }
}
