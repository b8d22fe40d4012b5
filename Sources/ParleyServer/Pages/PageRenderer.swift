import Hummingbird
import Mustache
import ParleyCore

/// Renders pages from the mustache templates through one layout, adding what every page needs.
public struct PageRenderer: Sendable {
    let library: MustacheLibrary
    let catalog: ModelCatalog
    /// The public files, which every page names by their fingerprinted URLs (`{{assets.app_js}}`).
    let assets: StaticAssets
    /// Finished messages' HTML as their owner sees it, rendered once.
    let messages = MessageHTMLCache()

    /// Loads every `*.mustache` file of the templates directory.
    public init(templatesDirectory: String, catalog: ModelCatalog, assets: StaticAssets) async throws {
        library = try await MustacheLibrary(directory: templatesDirectory)
        self.catalog = catalog
        self.assets = assets
    }

    /// Marks where a fragment goes in the rendered page; the random part keeps any text a user wrote from matching it.
    private static let fragmentMarker = "<!--fragment-\(RandomToken.make())-"

    /// A full page: the named template inside the layout, with the user, CSRF token and demo banner (unless `values`
    /// turns it off). `fragments` is HTML already written (and escaped) in Swift, placed where the template names its
    /// key with `{{{key}}}`: it is spliced in after rendering, because the template engine walks every character of
    /// the values it writes, which for a thousand messages cost more than writing them.
    func page(
        _ template: String, title: String, context: AppRequestContext, values: [String: Any] = [:],
        fragments: [String: String] = [:], status: HTTPResponse.Status = .ok
    ) -> Response {
        var values = values
        for key in fragments.keys { values[key] = Self.fragmentMarker + key + "-->" }
        values["page_title"] = title
        values["csrf_token"] = CSRFTokenMask.mask(context.csrfToken)
        values["demo_banner"] = (values["demo_banner"] as? Bool ?? true) && catalog.isDemoOnly
        values["assets"] = assets.urls
        if let user = context.identity?.user {
            values["user"] = ["email": user.email, "label": user.label, "is_admin": user.isAdmin] as [String: Any]
        }
        var html = library.render(values, withTemplate: template) ?? "Missing template \(template)"
        for (key, fragment) in fragments {
            if let marker = html.range(of: Self.fragmentMarker + key + "-->") {
                html.replaceSubrange(marker, with: fragment)
            }
        }
        return Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// The page shown for an error.
    func errorPage(_ error: AppError, requestID: String, context: AppRequestContext) -> Response {
        page(
            "error", title: error.status.reasonPhrase, context: context,
            values: [
                "status": error.status.code, "reason": error.status.reasonPhrase, "message": error.message,
                "requestID": requestID,
            ],
            status: error.status)
    }
}
