public import Hummingbird
import UserAPI

/// The server's routes: `GET /users/{id}`, `PUT /users/{id}` and `GET /requests`.
public enum UserRoutes {
    /// Builds a router that answers user requests from `users`, counting them in `counters`.
    ///
    /// A user response carries `ETag` (from the user's revision) and `Cache-Control: max-age`;
    /// a request whose `If-None-Match` names the current ETag gets `304 Not Modified` with the
    /// same headers and no body; an unknown id gets 404.
    ///
    /// - Parameter maxAge: The seconds clients may keep a user before asking again.
    public static func router(
        users: UserDirectory, maxAge: Int, counting counters: ServerCounters
    ) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("users/:id") { request, context -> Response in
            let id = try context.parameters.require("id")
            counters.requests.increment()
            guard let user = try await users.user(id) else {
                counters.notFound.increment()
                throw HTTPError(.notFound)
            }
            var headers = HTTPFields()
            headers[.eTag] = user.etag
            headers[.cacheControl] = "max-age=\(maxAge)"
            if matches(request.headers[.ifNoneMatch], user.etag) {
                counters.notModified.increment()
                return Response(status: .notModified, headers: headers)
            }
            var response = try UserResponse(user: user).response(from: request, context: context)
            response.headers.append(contentsOf: headers)
            return response
        }
        // Not counted: lets a person running the example change a user (and so its ETag).
        router.put("users/:id") { request, context -> UserResponse in
            let id = try context.parameters.require("id")
            let edit = try await request.decode(as: UserEdit.self, context: context)
            return UserResponse(user: try await users.update(id, name: edit.name, email: edit.email))
        }
        // Not counted: it exists so that a person running the example can watch the count.
        router.get("requests") { _, _ -> String in
            String(counters.requests.value)
        }
        return router
    }

    /// Whether an `If-None-Match` value names `etag` (a list of tags, or `*`).
    static func matches(_ ifNoneMatch: String?, _ etag: String) -> Bool {
        guard let ifNoneMatch else { return false }
        return ifNoneMatch.split(separator: ",").contains { tag in
            let tag = tag.trimmingWhitespace()
            // Weak comparison, as RFC 9110 asks for If-None-Match: W/"x" matches "x".
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}

extension Substring {
    /// The substring without leading and trailing spaces and tabs.
    fileprivate func trimmingWhitespace() -> Substring {
        let isWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isWhitespace($0) }),
            let end = lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        return self[start...end]
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

/// The body of `PUT /users/{id}`: the user's new name and e-mail.
struct UserEdit: Decodable {
    let name: String
    let email: String
}
