import Hummingbird
import ParleyCore

/// `GET /search?q=`: full-text search over the signed-in user's own conversations.
struct SearchController {
    /// The most results shown.
    static let resultLimit = 50
    let chat: ChatService
    let pages: PageRenderer

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/search") { request, context in try await search(request, context) }
    }

    /// The search form, sent in the query string.
    struct SearchForm: Decodable {
        var q: String?
    }

    private func search(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let query = try ParleyRequestDecoder.form(SearchForm.self, from: request.uri.query ?? "").q ?? ""
        let searched = !query.allSatisfy(\.isWhitespace)
        let hits = searched ? try await chat.search(userID: user.id, text: query, limit: Self.resultLimit) : []
        return pages.page(
            "search", title: searched ? "Search: \(query)" : "Search", context: context,
            values: [
                "search_query": query,
                "searched": searched,
                "results": hits.map(SearchResultView.values),
            ])
    }
}
