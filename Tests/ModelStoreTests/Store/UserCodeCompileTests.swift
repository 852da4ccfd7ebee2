import Foundation
import Testing
import ModelStore
import ModelStoreTestSupport

// Code as an app writes it, without Sendable annotations. That this file compiles in Swift 6
// language mode is the test: with a `@Sendable` progress closure and a `@Sendable` fetch it did
// not ("capture of 'bar' with non-Sendable type 'ProgressBar' in a '@Sendable' closure",
// "main actor-isolated property 'bar' can not be referenced from a Sendable closure").
// The tests below run it, so it also does what it says. Only `import ModelStore` (not
// @testable), as an app has it.

/// A progress bar: a plain class, not Sendable.
final class ProgressBar {
    private(set) var updates: [Int] = []

    func update(_ progress: ModelStore.ImportProgress) {
        updates.append(progress.completed)
    }
}

/// An API client: a plain class, not Sendable.
final class APIClient {
    private(set) var calls = 0

    func fetchUser(_ id: Int) async throws -> User {
        calls += 1
        return User.sample("user \(id)")
    }
}

/// An API client isolated to the main actor.
@MainActor final class MainActorAPIClient {
    func fetchUser(_ id: Int) async throws -> User {
        User.sample("main \(id)")
    }
}

/// A nonisolated import that updates a local progress bar, then reads it.
func importWithProgressBar(into store: ModelStore, users: [User]) async throws -> [Int] {
    let bar = ProgressBar()
    try await store.importObjects(users, key: \.userName, batchSize: 2) { progress in
        bar.update(progress)
    }
    return bar.updates
}

/// A screen on the main actor whose progress bar is one of its properties.
@MainActor final class ImportScreen {
    let bar = ProgressBar()

    func run(store: ModelStore, users: [User]) async throws {
        try await store.importObjects(users, key: \.userName, batchSize: 2) { progress in
            self.bar.update(progress)
        }
    }
}

/// An actor that imports and keeps its own progress bar.
actor Importer {
    let bar = ProgressBar()

    func run(store: ModelStore, users: [User]) async throws -> [Int] {
        try await store.importObjects(users, key: \.userName, batchSize: 2) { progress in
            self.bar.update(progress)
        }
        return bar.updates
    }
}

/// A read-through fetch with a local, non-Sendable client.
func loadUser(store: ModelStore) async throws -> User {
    let api = APIClient()
    return try await store.object(User.self, forKey: "user:42") { try await api.fetchUser(42) }
}

/// A read-through fetch with a main-actor client, from the main actor.
@MainActor func loadUser(store: ModelStore, api: MainActorAPIClient) async throws -> User {
    try await store.object(User.self, forKey: "main:7") { try await api.fetchUser(7) }
}

/// A main-actor model that holds its main-actor client.
@MainActor final class ProfileModel {
    let api = MainActorAPIClient()
    let store: ModelStore
    var user: User?

    init(store: ModelStore) {
        self.store = store
    }

    func load() async throws {
        user = try await store.object(User.self, forKey: "user:42") {
            try await self.api.fetchUser(42)
        }
    }
}

/// A fetch decorator written against `FetchResult`'s cases as they were before tags: it takes a
/// result apart and builds it again. That it compiles is the test that tags left the cases alone.
func capLifetime<Value>(_ result: FetchResult<Value>, at seconds: TimeInterval) -> FetchResult<Value> {
    switch result {
    case let .value(value, lifetime, metadata):
        return .value(value, expiresAfter: min(lifetime ?? seconds, seconds), metadata: metadata)
    case let .notModified(lifetime):
        return .notModified(expiresAfter: min(lifetime ?? seconds, seconds))
    case .notFound:
        return .notFound
    }
}

@Suite("User code compiles without Sendable annotations")
struct UserCodeCompileTests {
    let users = (0..<5).map { User.sample("u\($0)") }

    @Test("A nonisolated import updates a plain progress bar")
    func nonisolatedProgressBar() async throws {
        let store = try Fixture().open()
        #expect(try await importWithProgressBar(into: store, users: users) == [2, 4, 5])
    }

    @Test("A main-actor screen's progress bar is updated on the main actor")
    @MainActor func mainActorProgressBar() async throws {
        let store = try Fixture().open()
        let screen = ImportScreen()
        try await screen.run(store: store, users: users)
        #expect(screen.bar.updates == [2, 4, 5])
    }

    @Test("An actor's progress bar is updated in the actor")
    func actorProgressBar() async throws {
        let store = try Fixture().open()
        #expect(try await Importer().run(store: store, users: users) == [2, 4, 5])
    }

    @Test("A fetch may capture a non-Sendable client")
    func nonSendableClient() async throws {
        let store = try Fixture().open()
        #expect(try await loadUser(store: store) == User.sample("user 42"))
    }

    @Test("A fetch may call a main-actor client, and a main-actor model's own client")
    @MainActor func mainActorClients() async throws {
        let store = try Fixture().open()
        #expect(try await loadUser(store: store, api: MainActorAPIClient()) == User.sample("main 7"))
        let model = ProfileModel(store: store)
        try await model.load()
        #expect(model.user == User.sample("main 42"))
    }
}
