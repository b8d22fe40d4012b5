import Foundation
import Hummingbird
import ParleyCore

/// Personal API keys: Settings → API keys and `/api/keys` for their owner (with a session: `APIKeyAuthority` takes no
/// key on these paths), and the admin's list of every user's keys. A key's text is shown once, when it is made.
struct APIKeysController {
    /// The longest key name accepted.
    static let maxNameLength = 100
    /// The most keys one user may hold.
    static let maxKeysPerUser = 50
    let store: any APIKeyStore
    let pages: PageRenderer
    let now: @Sendable () -> Date

    /// Adds the user's routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/settings/keys") { _, context in try await page(context) }
        router.post("/settings/keys") { request, context in
            let form = try await request.decode(as: KeyForm.self, context: context)
            let user = try context.requireUser()
            let expiresAt = form.expiresInDays.flatMap(Int.init).filter { $0 > 0 }.map {
                now().addingTimeInterval(Double($0) * 86_400)
            }
            switch try await create(userID: user.id, name: form.name, expiresAt: expiresAt) {
            case .success(let made): return try await page(context, made: made)
            case .failure(let problem): return try await page(context, error: problem.message, status: problem.status)
            }
        }
        router.post("/settings/keys/{id}/revoke") { _, context in
            try await revoke(context, userID: try context.requireUser().id)
            return Response.seeOther("/settings/keys")
        }
        router.get("/api/keys") { _, context in
            let user = try context.requireUser()
            return try Response.json(
                ListJSON(data: try await store.keys(userID: user.id).map(KeyJSON.init), hasMore: false))
        }
        router.post("/api/keys") { request, context in
            let user = try context.requireUser()
            let body = try await request.decodeJSON(KeyRequest.self, context: context)
            if let expiresAt = body.expiresAt, expiresAt <= now() {
                throw AppError(
                    .unprocessableContent, code: "invalid_expiry", message: "expires_at must be in the future.")
            }
            switch try await create(userID: user.id, name: body.name, expiresAt: body.expiresAt) {
            case .success(let made):
                var answer = KeyJSON(made.key)
                answer.key = made.text
                return try Response.json(answer, status: .created)
            case .failure(let problem): throw problem
            }
        }
        router.delete("/api/keys/{id}") { _, context in
            try await revoke(context, userID: try context.requireUser().id)
            return Response(status: .noContent)
        }
    }

    /// Adds the admin's routes to the admin group.
    func addAdminRoutes(to admin: RouterGroup<AppRequestContext>) {
        admin.get("keys") { _, context in
            let keys = try await store.allKeys().map { entry -> [String: Any] in
                var row = Self.keyValues(entry.key)
                row["email"] = entry.email
                return row
            }
            return pages.page(
                "admin_keys", title: "API keys", context: context, values: ["nav_keys": true, "keys": keys])
        }
        admin.post("keys/{id}/revoke") { _, context in
            try await revoke(context, userID: nil)
            return Response.seeOther("/admin/keys")
        }
    }

    /// The settings form: a name and how many days the key lasts (empty: for good).
    struct KeyForm: Decodable {
        var name: String?
        var expiresInDays: String?

        enum CodingKeys: String, CodingKey {
            case name
            case expiresInDays = "expires_in_days"
        }
    }

    /// `POST /api/keys`.
    struct KeyRequest: Decodable {
        var name: String?
        var expiresAt: Date?
    }

    /// A key in the JSON API; `key` (its text) only in the answer that made it.
    struct KeyJSON: Encodable {
        var id: Int64
        var name: String
        var createdAt: Date
        var lastUsedAt: Date?
        var expiresAt: Date?
        var key: String?

        init(_ key: APIKey) {
            id = key.id
            name = key.name
            createdAt = key.createdAt
            lastUsedAt = key.lastUsedAt
            expiresAt = key.expiresAt
        }
    }

    /// Makes a key, or says why not (a bad name, too many keys).
    private func create(userID: UserID, name: String?, expiresAt: Date?) async throws
        -> Result<(key: APIKey, text: String), AppError>
    {
        let name = (name ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...Self.maxNameLength).contains(name.count),
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            return .failure(
                AppError(
                    .unprocessableContent, code: "invalid_name",
                    message: "A key's name needs 1 to \(Self.maxNameLength) characters."))
        }
        guard try await store.keys(userID: userID).count < Self.maxKeysPerUser else {
            return .failure(
                AppError(
                    .unprocessableContent, code: "too_many_keys",
                    message: "You hold \(Self.maxKeysPerUser) keys already: revoke one first."))
        }
        let made = APIKeyAuthority.make()
        let key = try await store.createKey(userID: userID, name: name, digest: made.digest, expiresAt: expiresAt)
        return .success((key, made.key))
    }

    /// Revokes the key of the path: the user's own, or anyone's when `userID` is nil; 404 (the store's `.notFound`)
    /// when there is none.
    private func revoke(_ context: AppRequestContext, userID: UserID?) async throws {
        try await store.deleteKey(id: try context.rowID(), userID: userID)
    }

    private func page(
        _ context: AppRequestContext, made: (key: APIKey, text: String)? = nil, error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let user = try context.requireUser()
        var values: [String: Any] = ["keys": try await store.keys(userID: user.id).map(Self.keyValues)]
        values["made"] = made.map { ["name": $0.key.name, "text": $0.text] }
        values["error"] = error
        return pages.page("keys", title: "API keys", context: context, values: values, status: status)
    }

    /// The template values of a key.
    private static func keyValues(_ key: APIKey) -> [String: Any] {
        var values: [String: Any] = [
            "id": key.id, "name": key.name, "created_at": key.createdAt.formatted(.iso8601),
        ]
        values["last_used_at"] = key.lastUsedAt?.formatted(.iso8601)
        values["expires_at"] = key.expiresAt?.formatted(.iso8601)
        return values
    }
}
