import ModelStore
import Vapor

// The context README.md's Vapor examples are compiled in: scripts/extract-driver-snippets turns
// each block marked `<!-- snippet: driver Vapor -->` into a method on `VaporReadmeContext`
// (VaporReadmeSnippets.swift). Nothing here runs: the target exists so that
// `make test-integrations` fails when an example stops compiling.

/// What the README's Vapor examples use without declaring it: the code of a `configure(_:)`.
struct VaporReadmeContext: Sendable {
    /// The application `configure(_ app: Application)` is given.
    let app: Application
    /// A store the app opened itself, for the provider that takes one.
    let store: ModelStore
}
