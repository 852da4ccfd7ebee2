// The context README.md's Hummingbird examples are compiled in: scripts/extract-driver-snippets
// turns each block marked `<!-- snippet: driver Hummingbird -->` into a method on
// `HummingbirdReadmeContext` (HummingbirdReadmeSnippets.swift). Nothing here runs: the target
// exists so that `make test-integrations` fails when an example stops compiling. The examples
// are whole `main.swift` files, so they need nothing from here.

/// What the README's Hummingbird examples use without declaring it: nothing so far.
struct HummingbirdReadmeContext: Sendable {}
