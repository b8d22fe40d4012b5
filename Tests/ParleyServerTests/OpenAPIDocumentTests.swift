import Foundation
import Testing

/// `Public/openapi.json` against the router: the document must describe every route of the JSON API (`/api/…`) and of
/// the OpenAI-compatible endpoint (`/v1/…`), and describe no operation that no route serves.
@Suite("OpenAPI document")
struct OpenAPIDocumentTests {
    /// The operation keys of an OpenAPI path item.
    static let methods: Set<String> = ["get", "put", "post", "patch", "delete"]

    /// A route or operation with its captures unnamed: "GET /v1/models/{}" for both "GET /v1/models/{model}" and the
    /// router's catch-all "GET /v1/models/**".
    static func canonical(_ route: String) -> String {
        route.replacing(/\{[a-z_]+\}|\*\*/, with: "{}")
    }

    /// The document's operations, as the router names routes: "GET /api/conversations/{id}".
    static func documentedOperations() throws -> Set<String> {
        let data = try Data(contentsOf: URL(fileURLWithPath: TestServer.repositoryRoot + "/Public/openapi.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        return Set(
            paths.flatMap { path, item in
                item.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" }
            })
    }

    @Test("every /api and /v1 route is in the document, and every operation the document describes is a route")
    func everyRouteIsDescribed() async throws {
        let described = try Self.documentedOperations()
        try await withTestServer { server in
            let routes = Set(server.routes.map(Self.canonical))
            let api = routes.filter { $0.contains(" /api/") || $0.contains(" /v1/") }
            let operations = Set(described.map(Self.canonical))
            #expect(api.count > 30)
            for route in api.subtracting(operations).sorted() {
                Issue.record("\(route) is not described in Public/openapi.json")
            }
            for operation in operations.subtracting(routes).sorted() {
                Issue.record("Public/openapi.json describes \(operation), which no route serves")
            }
        }
    }
}
