import Hummingbird
import Mustache
import ParleyCore

/// Renders pages from the mustache templates through one layout, adding what every page needs.
public struct PageRenderer: Sendable {
    let library: MustacheLibrary
    let catalog: ModelCatalog
    /// The public files, which every page names by their fingerprinted URLs (`{{assets.app_js}}`).
    let assets: StaticAssets

    /// Loads every `*.mustache` file of the templates directory.
    public init(templatesDirectory: String, catalog: ModelCatalog, assets: StaticAssets) async throws {
        library = try await MustacheLibrary(directory: templatesDirectory)
        self.catalog = catalog
        self.assets = assets
    }

    /// A full page: the named template inside the layout, with the user, CSRF token and demo banner (unless `values`
    /// turns it off).
    func page(_ template: String, title: String, context: AppRequestContext, values: [String: Any] = [:],
              status: HTTPResponse.Status = .ok) -> Response {
        var values = values
        values["page_title"] = title
        values["csrf_token"] = CSRFTokenMask.mask(context.csrfToken)
        values["demo_banner"] = (values["demo_banner"] as? Bool ?? true) && catalog.isDemoOnly
        values["assets"] = assets.urls
        if let user = context.identity?.user {
            values["user"] = ["email": user.email, "is_admin": user.isAdmin] as [String: Any]
        }
        let html = library.render(values, withTemplate: template) ?? "Missing template \(template)"
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// The page shown for an error.
    func errorPage(_ error: AppError, requestID: String, context: AppRequestContext) -> Response {
        page("error", title: error.status.reasonPhrase, context: context,
             values: ["status": error.status.code, "reason": error.status.reasonPhrase, "message": error.message,
                      "requestID": requestID],
             status: error.status)
    }
}
