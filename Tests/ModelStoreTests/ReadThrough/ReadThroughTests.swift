import Foundation
import Testing
@testable import ModelStore
import ModelStoreTestSupport

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

    // MARK: - Cancellation and coalescing

    @Test("A cancelled caller returns CancellationError at once; the fetch goes on for the others and is stored")
    func cancelledCallerLeavesAlone() async throws {
        let store = try Fixture().open()
        let gate = FetchGate()
        let leaver = Task { try await store.object(User.self, forKey: "u") { try await gate.pass(User.sample("ada")) } }
        await gate.waitUntilStarted()
        let stayer = Task { try await store.object(User.self, forKey: "u") { try await gate.pass(User.sample("bob")) } }
        try await waitForWaiters(2, on: store)
        leaver.cancel()
        // The gate is still shut: returning now proves the caller did not wait for the fetch.
        let left = await within { try await leaver.value }
        gate.open()
        #expect(throws: CancellationError.self) { try #require(left).get() }
        #expect(try await stayer.value == User.sample("ada"))
        #expect(try store.object(User.self, forKey: "u") == User.sample("ada"))
        #expect(gate.calls == 1)
    }

    @Test("When the last waiter cancels, the fetch is cancelled, nothing is stored, and the next call fetches again")
    func lastWaiterCancelsFetch() async throws {
        let store = try Fixture().open()
        let gate = FetchGate()
        let caller = Task { try await store.object(User.self, forKey: "u") { try await gate.pass(User.sample("ada")) } }
        await gate.waitUntilStarted()
        caller.cancel()
        let left = await within { try await caller.value }
        #expect(throws: CancellationError.self) { try #require(left).get() }
        #expect(await within { await gate.waitUntilCancelled() } != nil, "the fetch was never cancelled")
        #expect(try store.object(User.self, forKey: "u") == nil)
        #expect(store.database.fetches.inFlight == 0)
        gate.open()
        let refetched = try await store.object(User.self, forKey: "u") { try await gate.pass(User.sample("bob")) }
        #expect(refetched == User.sample("bob"))
        #expect(gate.calls == 2)
    }

    @Test("Instant concurrent callers for one key make exactly one fetch, round after round", .long)
    func coalescingIsAirtight() async throws {
        let store = try Fixture().open()
        let api = FakeAPI()
        let rounds = 2_000
        for round in 0..<rounds {
            try await withThrowingTaskGroup(of: User.self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        try await store.object(User.self, forKey: "u\(round)") { try await api.fetchUser("ada") }
                    }
                }
                for try await user in group { #expect(user == User.sample("ada")) }
            }
        }
        #expect(api.fetchCount == rounds)
    }

    @Test("A caller that read the store before a fetch stored its model reads again instead of fetching")
    func lateCallerRechecks() async throws {
        let coalescer = FetchCoalescer()
        let lateTicket = coalescer.ticket()  // taken before the store read that missed
        let first = try await coalescer.value(
            Int.self, typeName: "Int", forKey: "k", since: coalescer.ticket(), fetch: PendingFetch { 1 },
            store: { $0 })
        guard case .fetched = first else { return #expect(Bool(false), "the first caller did not fetch") }
        let late = try await coalescer.value(
            Int.self, typeName: "Int", forKey: "k", since: lateTicket, fetch: PendingFetch { 2 }, store: { $0 })
        guard case .recheck = late else { return #expect(Bool(false), "the late caller fetched a second time") }
    }

    @Test("A caller asking for another type while a fetch for the key runs gets a type-mismatch error")
    func otherTypeWhileFetching() async throws {
        let store = try Fixture().open()
        let gate = FetchGate()
        let fetching = Task { try await store.object(User.self, forKey: "k") { try await gate.pass(User.sample()) } }
        await gate.waitUntilStarted()
        do {
            _ = try await store.object(Book.self, forKey: "k") { Book(name: "b", price: 1) }
            Issue.record("expected readThroughTypeMismatch")
        } catch let error as ModelStoreError {
            guard case let .readThroughTypeMismatch(key, requested, inFlight) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(key == "k" && requested == "Book" && inFlight == "User")
        }
        gate.open()
        #expect(try await fetching.value == User.sample())
    }

    /// Waits (polling, bounded by 2 minutes, as `eventually`) until `count` callers wait on
    /// fetches in flight.
    func waitForWaiters(_ count: Int, on store: ModelStore) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if store.database.fetches.waiters == count { return }
            await Task.yield()
        }
        Issue.record("the callers never joined the fetch")
    }
}
