// Generated from README.md by scripts/extract-driver-snippets: do not edit; run the script.
// README.md's Swift blocks for the Hummingbird driver, compiled in the context HummingbirdReadmeContext.swift
// supplies, with ModelStore's driver traits on.
import Foundation
import Hummingbird
import HummingbirdAuth
import ModelStore
import ModelStoreHummingbird

extension HummingbirdReadmeContext {
    /// README.md:701
    func readmeLine701() async throws {
#sourceLocation(file: "README.md", line: 702)






        /// What a session keeps.
        struct Login: Codable, Sendable {
            var user: String
        }

        var configuration = ModelStore.Configuration()
        configuration.directory = URL(fileURLWithPath: "/var/lib/myapp")
        let persist = try ModelStorePersistDriver(name: "sessions", configuration: configuration)

        let router = Router(context: BasicSessionRequestContext<Login, String>.self)
        router.addMiddleware { SessionMiddleware(storage: persist) }
        router.put("login/:user") { _, context -> HTTPResponse.Status in
            context.sessions.createSession(Login(user: try context.parameters.require("user")), expiresIn: .seconds(3_600))
            return .ok
        }
        router.get("me") { _, context -> String in
            context.sessions.session?.user ?? "nobody"
        }
        // `run()` sweeps expired records every 10 minutes (sweepInterval:) and closes the store
        // when the app shuts down gracefully.
        let app = Application(router: router, services: [persist])
        try await app.runService()
#sourceLocation()
    }
}

extension HummingbirdReadmeContext {
    /// README.md:737
    func readmeLine737() async throws {
#sourceLocation(file: "README.md", line: 738)



        let store = try ModelStore(name: "app", policy: .never)
        let sessions = ModelStorePersistDriver(collection: store.collection("sessions"))
#sourceLocation()
    }
}
