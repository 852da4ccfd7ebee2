public import Hummingbird
import UserAPI

/// The server's routes: `GET /users/{id}` and `GET /requests`.
///
/// Any identifier is a valid user; the server makes one up, stamped with the request count,
/// so the example needs no data files.
public enum UserRoutes {
    /// Builds a router that answers user requests and counts them in `counter`.
    public static func router(counting counter: RequestCounter) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("users/:id") { _, context -> UserResponse in
            let id = try context.parameters.require("id")
            let revision = counter.increment()
            return UserResponse(user: User(id: id, name: "User \(id)", email: "\(id)@example.com", revision: revision))
        }
        // Not counted: it exists so that a person running the example can watch the count.
        router.get("requests") { _, _ -> String in
            String(counter.value)
        }
        return router
    }
}

/// Wraps ``UserAPI/User`` so Hummingbird can encode it as JSON, without making the shared
/// model depend on Hummingbird.
struct UserResponse: ResponseEncodable {
    let user: User

    func encode(to encoder: any Encoder) throws {
        try user.encode(to: encoder)
    }
}
