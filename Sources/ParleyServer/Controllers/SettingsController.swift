import Foundation
import Hummingbird
import ParleyCore

/// The settings page: export and import of conversations, and deleting the account.
struct SettingsController {
    let accountService: AccountService
    let csrf: CSRFTokens
    let accounts: any AccountStore
    let chat: ChatService
    let pages: PageRenderer

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/settings") { request, context in
            try await page(request, context, imported: request.uri.queryParameters["imported"].flatMap { Int($0) })
        }
        router.post("/settings/import") { request, context in try await importFile(request, context) }
        router.post("/settings/time-zone") { request, context in try await setTimeZone(request, context) }
        router.post("/settings/delete-account") { request, context in try await deleteAccount(request, context) }
    }

    /// What an import created.
    struct ImportResult: Encodable {
        var imported: Int
        var conversationIds: [ConversationID]
    }

    private func page(
        _ request: Request, _ context: AppRequestContext, imported: Int? = nil, error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let user = try context.requireUser()
        let budget = try await chat.budgetStatus(userID: user.id)
        let zone = ConversationGroups.timeZone(of: request).identifier
        var values: [String: Any] = [
            "max_import_megabytes": ImportReader.maxBytes / (1024 * 1024), "usage": BudgetNotice.values(budget),
            "time_zones": TimeZone.knownTimeZoneIdentifiers.sorted().map { ["id": $0, "selected": $0 == zone] },
        ]
        values["error"] = error
        values["imported"] = imported.map { ["count": $0, "plural": $0 != 1] }
        return pages.page("settings", title: "Settings", context: context, values: values, status: status)
    }

    /// Imports a Parley export or ChatGPT's `conversations.json`, all or nothing: the settings page's form (multipart,
    /// the `file` field; answered with the page and a notice), or a script's raw `application/json` body (answered
    /// 201).
    private func importFile(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let file: Data
        if request.multipartBoundary != nil {
            let limits = UploadLimits(fileField: "file", maxFileBytes: ImportReader.maxBytes, maxFiles: 1)
            let form = try await UploadForm.read(request, limits: limits, expectedCSRF: context.csrfTokenForUploadForm)
            guard let chosen = form.files.first else { throw AppError.malformed("Choose a file to import.") }
            file = Data(chosen.bytes)
        } else {
            file = Data(try await request.jsonBody(limit: ImportReader.maxBytes).readableBytesView)
        }
        let transcripts = try ImportReader.transcripts(from: file, defaultModel: chat.catalog.defaultModel?.id ?? "")
        let imported = try await chat.importTranscripts(transcripts, userID: user.id)
        if request.isPlainForm { return .seeOther("/settings?imported=\(imported.count)") }
        return try .json(ImportResult(imported: imported.count, conversationIds: imported.map(\.id)), status: .created)
    }

    /// The time-zone form: which zone dates and the conversation list's days are counted in, kept in this browser.
    struct TimeZoneForm: Decodable {
        var zone: String?
    }

    /// Keeps the chosen time zone in this browser's `parley_tz` cookie (what the page's script sets by itself); 422 for
    /// a name that is no time zone.
    private func setTimeZone(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        _ = try context.requireUser()
        let form = try await request.decode(as: TimeZoneForm.self, context: context)
        guard let zone = form.zone.flatMap(TimeZone.init(identifier:)) else {
            return try await page(
                request, context, error: "Choose a time zone from the list.", status: .unprocessableContent)
        }
        var response = Response.seeOther("/settings")
        response.setCookie(ConversationGroups.timeZoneCookie(zone, secure: context.usesSecureCookies))
        return response
    }

    /// Deletes the account and everything of it once the current password is confirmed, then signs out.
    private func deleteAccount(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let form = try await request.decode(as: AuthController.CredentialsForm.self, context: context)
        // Read into a flag, not answered inside the catch: an await in a typed catch crashes Swift 6.3.1's compiler.
        let confirmed: Bool
        do {
            _ = try await accountService.authenticate(
                email: user.email, password: form.password ?? "",
                address: context.clientAddress)
            confirmed = true
        } catch {
            guard error == .invalidCredentials else { throw error }
            confirmed = false
        }
        guard confirmed else {
            return try await page(
                request, context, error: "That is not your password; nothing was deleted.", status: .forbidden)
        }
        try await chat.deleteAccount(userID: user.id, accounts: accounts)
        return AuthController.signedOut(context, csrf: csrf)
    }
}
