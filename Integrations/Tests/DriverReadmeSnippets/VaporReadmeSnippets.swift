// Generated from README.md by scripts/extract-driver-snippets: do not edit; run the script.
// README.md's Swift blocks for the Vapor driver, compiled in the context VaporReadmeContext.swift
// supplies, with ModelStore's driver traits on.
import ModelStore
import ModelStoreVapor
import Vapor

extension VaporReadmeContext {
    /// README.md:783
    func readmeLine783() async throws {
#sourceLocation(file: "README.md", line: 784)




        app.caches.use(try .modelStore(name: "cache"))          // opened here, closed at shutdown
        // or, with a store you own:         app.caches.use(.modelStore(store))
        // or, with one collection of it:    app.caches.use(.modelStore(store.collection("cache")))

        app.get("visits") { req async throws -> String in
            let visits = try await req.cache.get("visits", as: Int.self) ?? 0
            try await req.cache.set("visits", to: visits + 1, expiresIn: .hours(1))
            return String(visits + 1)
        }
#sourceLocation()
    }
}
