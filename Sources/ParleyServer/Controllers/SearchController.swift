import Hummingbird
import ParleyCore

/// Full-text search over the signed-in user's own conversations: the page (`GET /search?q=`) and the JSON API
/// (`GET /api/search?q=&limit=`).
struct SearchController {
    /// The most results shown.
    static let resultLimit = 50
    let chat: ChatService
    let pages: PageRenderer

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/search") { request, context in try await search(request, context) }
        router.get("/api/search") { request, context in try await searchJSON(request, context) }
    }

    /// The search form, sent in the query string; `limit` only in the API.
    struct SearchForm: Decodable {
        var q: String?
        var limit: Int?
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

    /// The hits as a list, best first; 400 for a blank `q` or a `limit` outside 1 to `resultLimit`.
    private func searchJSON(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let form = try ParleyRequestDecoder.form(SearchForm.self, from: request.uri.query ?? "")
        guard let query = form.q, !query.allSatisfy(\.isWhitespace) else {
            throw AppError.malformed("Say what to search for in q.")
        }
        let limit = form.limit ?? Self.resultLimit
        guard (1...Self.resultLimit).contains(limit) else {
            throw AppError.malformed("limit must be between 1 and \(Self.resultLimit).")
        }
        let hits = try await chat.search(userID: user.id, text: query, limit: limit)
        return try .json(ListJSON(data: hits.map(SearchHitJSON.init), hasMore: false))
    }
}
