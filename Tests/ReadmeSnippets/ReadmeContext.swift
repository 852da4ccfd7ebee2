import Foundation
import ModelStore

// The context the Swift examples of README.md and the DocC articles are compiled in. scripts/extract-readme-snippets
// turns each ```swift block into a method on `ReadmeContext` (ReadmeSnippets.swift), so a
// block can use these names as it does in the README without declaring them. Nothing here
// runs: the target exists so that `swift build --build-tests` fails when an example stops
// compiling. Keep this file to what the README leaves to the reader's app.

/// What the README's examples use without declaring it.
struct ReadmeContext: Sendable {
    /// The store the tour opens (`let store = try ModelStore(name: "userdb", policy: .low)`).
    let store: ModelStore
    /// The store of `Item`s the bulk import fills.
    let items: ModelStore
    /// A model value, as the tour's first block makes one.
    let user: User
    /// The app's progress display (Examples/QuickStart has a real one).
    let bar: ProgressBar
    /// The app's network client, for the read-through examples.
    let api: APIClient
    /// A short-lived model the articles store with a lifetime of its own.
    let session: Session
    /// The models an article's bulk import reads.
    let users: [Account]
    /// Read-through options an article builds up before the call that uses them.
    let options: ReadThroughOptions
    /// The app's outgoing HTTP request, which an article gives an ETag.
    let request: OutgoingRequest
    /// The start of the time range an article's index query asks for.
    let since: Date
}

/// A login session, the articles' example of a record with its own lifetime.
struct Session: Codable, Sendable { var token: String }

/// A model with an `id` property, as an article's bulk import reads them.
struct Account: Codable, Sendable { var id: String; var name: String }

/// Stands for the app's HTTP request type (`URLRequest` on Apple platforms).
final class OutgoingRequest: Sendable {
    func setValue(_ value: String?, forHTTPHeaderField field: String) {}
}

/// Stands for the app's progress display in the bulk import example.
final class ProgressBar: Sendable {
    func update(_ progress: ModelStore.ImportProgress) {}
}

/// Stands for the app's network client in the read-through examples.
struct APIClient: Sendable {
    func fetchUser(_ id: Int) async throws -> User {
        throw URLError(.notConnectedToInternet)
    }

    /// A conditional GET, as the read-through options example uses it.
    enum UserResponse {
        case ok(User, etag: String, maxAge: TimeInterval?)
        case notModified(maxAge: TimeInterval?)
        case notFound
    }

    func user(_ id: Int, ifNoneMatch etag: String?) async throws -> UserResponse {
        throw URLError(.notConnectedToInternet)
    }

    /// A response that says which team the user is in, for the tagged read-through example.
    struct UserWithTeam { var user: User; var teamID: Int }

    func user(_ id: Int) async throws -> UserWithTeam {
        throw URLError(.notConnectedToInternet)
    }

    /// A revalidation's answer, for the metadata article's 304 example.
    struct Revalidation { var notModified: Bool; var etag: String }

    func revalidate(etag: String) async throws -> Revalidation {
        throw URLError(.notConnectedToInternet)
    }
}


/// Stands for the app's code that shows a model, in the offline example.
func show(_ user: User, outdated: Bool) {}
