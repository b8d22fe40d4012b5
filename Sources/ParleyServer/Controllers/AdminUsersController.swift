import Foundation
import Hummingbird
import ParleyCore

/// Account management for admins: the user list with this month's spend, creating users, invite links, the default
/// budget, and each user's page (usage, costliest conversations, and the forms to disable, promote, reset the
/// password, set a budget and delete the account).
struct AdminUsersController {
    /// Conversations listed on a user's page.
    static let conversationRows = 10
    let accountService: AccountService
    let accounts: any AccountStore
    let chat: ChatService
    let invites: InviteService
    let pages: PageRenderer
    let usage: any UsageStore
    let users: any UserAdminStore

    /// Adds the routes to the admin group.
    func addRoutes(to admin: RouterGroup<AppRequestContext>) {
        admin.get("users") { request, context in
            let deleted = request.uri.queryParameters["deleted"] != nil
            return try await list(context, values: deleted ? ["notice": "The account and its data were deleted."] : [:])
        }
        admin.post("users") { request, context in try await create(request, context) }
        admin.post("budget") { request, context in try await setDefaultBudget(request, context) }
        admin.get("users/{id}") { request, context in try await show(request, context) }
        admin.post("users/{id}/disabled") { request, context in
            let form = try await request.decode(as: AccountForm.self, context: context)
            return try await change(request, context, refusingSelf: "You cannot disable your own account.") {
                id throws(StoreError) in
                try await users.setDisabled(form.disabled.isOn, userID: id)
            }
        }
        admin.post("users/{id}/admin") { request, context in
            let form = try await request.decode(as: AccountForm.self, context: context)
            return try await change(request, context, refusingSelf: "You cannot change your own admin rights.") {
                id throws(StoreError) in
                try await users.setAdmin(form.admin.isOn, userID: id)
            }
        }
        admin.post("users/{id}/password") { request, context in try await resetPassword(request, context) }
        admin.post("users/{id}/budget") { request, context in try await setBudget(request, context) }
        admin.post("users/{id}/storage") { request, context in try await setStorageQuota(request, context) }
        admin.post("users/{id}/delete") { request, context in try await delete(request, context) }
        addInviteRoutes(to: admin)
    }

    /// The users page; `values` adds to it (a new invite's link, a notice).
    func list(
        _ context: AppRequestContext, error: String? = nil, status: HTTPResponse.Status = .ok,
        values extra: [String: Any] = [:]
    ) async throws -> Response {
        let month = UsageDay.today.firstOfMonth
        async let accounts = users.accounts()
        async let spend = usage.spend(since: month)
        async let defaultBudget = users.defaultMonthlyBudget()
        async let invites = inviteValues()
        let spent = try await spend
        let inviteRows = try await invites
        var values: [String: Any] = [
            "nav_users": true, "invites": inviteRows, "has_invites": !inviteRows.isEmpty,
            "month": DayText.long(month),
            "default_budget": try await defaultBudget.map(MicroDollars.decimal) ?? "",
            "users": try await accounts.map { account -> [String: Any] in
                var row = Self.accountValues(account)
                row["spent"] = MicroDollars.display(spent[account.user.id] ?? 0)
                return row
            },
        ]
        values["error"] = error
        values.merge(extra) { _, new in new }
        return pages.page("admin_users", title: "Users", context: context, values: values, status: status)
    }

    /// The forms of the users' pages: a new account, a password, the admin and disabled switches, the amounts
    /// (dollars for a budget, megabytes for a quota; empty for the default), and the email typed to confirm a deletion.
    struct AccountForm: Decodable {
        var email: String?
        var password: String?
        var admin: FormFlag?
        var disabled: FormFlag?
        var budget: String?
        var quota: String?
        var confirmEmail: String?

        enum CodingKeys: String, CodingKey {
            case email, password, admin, disabled, budget, quota
            case confirmEmail = "confirm_email"
        }
    }

    private func create(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let form = try await request.decode(as: AccountForm.self, context: context)
        let email = (form.email ?? "").trimmingCharacters(in: .whitespaces)
        let password = form.password ?? ""
        if let problem = AccountRules.emailProblem(email) ?? AccountRules.passwordProblem(password) {
            return try await list(context, error: problem, status: .unprocessableContent)
        }
        let hash = try await accountService.newPasswordHash(password)
        do {
            let user = try await accounts.createUser(email: email, passwordHash: hash, isAdmin: form.admin.isOn)
            return .seeOther("/admin/users/\(user.id)")
        } catch {
            guard error == .duplicate else { throw error }
            return try await list(context, error: "An account with this email exists already.", status: .conflict)
        }
    }

    private func setDefaultBudget(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let form = try await request.decode(as: AccountForm.self, context: context)
        switch Self.budget(form.budget) {
        case .success(let micros):
            try await users.setDefaultMonthlyBudget(micros)
            return .seeOther("/admin/users")
        case .failure(let problem):
            return try await list(context, error: problem.message, status: .unprocessableContent)
        }
    }

    private func show(
        _ request: Request, _ context: AppRequestContext, error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let id = try context.rowID()
        let query = try UsageQuery(request)
        guard let account = try await users.account(id: id) else { throw AppError.notFound }
        async let report = usage.userReport(userID: id, period: query.period, conversationLimit: Self.conversationRows)
        async let budget = chat.budgetStatus(userID: id)
        async let storage = users.storage(userID: id)
        let data = try await report
        let path = "/admin/users/\(id)"
        var values: [String: Any] = [
            "nav_users": true,
            "account": Self.accountValues(account),
            "created_at": account.user.createdAt.formatted(.iso8601),
            "budget": BudgetNotice.values(try await budget),
            "storage": Self.storageValues(try await storage, own: account.storageQuotaBytes),
            "period": UsageViews.period(query, path: path),
            "totals": UsageViews.figures(data.totals),
            "chart": UsageChart.values(data.daily, period: query.period, caption: "Spend per day by model"),
            "conversations": data.conversations.map { conversation -> [String: Any] in
                [
                    "title": conversation.title, "replies": MicroDollars.grouped(conversation.replies),
                    "cost": MicroDollars.display(conversation.costMicros),
                ]
            },
            "is_self": id == context.identity?.user.id,
        ]
        values["error"] = error
        return pages.page("admin_user", title: account.user.email, context: context, values: values, status: status)
    }

    /// Deletes the user of the path and everything of theirs (as their own deletion does, through
    /// `ChatService.deleteAccount`) once the admin has typed their email: 400 and nothing deleted for another text,
    /// 422 for the admin's own account (Settings deletes that), 404 for no such user.
    private func delete(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let id = try context.rowID()
        let form = try await request.decode(as: AccountForm.self, context: context)
        guard let account = try await users.account(id: id) else { throw AppError.notFound }
        if id == context.identity?.user.id {
            return try await show(
                request, context, error: "You cannot delete your own account here: use Settings → Delete account.",
                status: .unprocessableContent)
        }
        let typed = (form.confirmEmail ?? "").trimmingCharacters(in: .whitespaces)
        guard typed.lowercased() == account.user.email.lowercased() else {
            return try await show(
                request, context, error: "Type the user's email exactly to delete the account; nothing was deleted.",
                status: .badRequest)
        }
        try await chat.deleteAccount(userID: id, accounts: accounts)
        return .seeOther("/admin/users?deleted=1")
    }

    private func resetPassword(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let form = try await request.decode(as: AccountForm.self, context: context)
        let password = form.password ?? ""
        if let problem = AccountRules.passwordProblem(password) {
            return try await show(request, context, error: problem, status: .unprocessableContent)
        }
        let hash = try await accountService.newPasswordHash(password)
        return try await change(request, context, refusingSelf: nil) { id throws(StoreError) in
            try await users.setPasswordHash(hash, userID: id)
        }
    }

    private func setBudget(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        try await setAmount(request, context, field: \.budget, parse: Self.budget) { micros, id throws(StoreError) in
            try await users.setMonthlyBudget(micros, userID: id)
        }
    }

    private func setStorageQuota(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        try await setAmount(request, context, field: \.quota, parse: Self.megabytes) { bytes, id throws(StoreError) in
            try await users.setStorageQuota(bytes, userID: id)
        }
    }

    /// Reads an amount from the form's `field` with `parse` (nil: the default applies) and applies it to the user of
    /// the path; a bad amount shows their page again with a 422.
    private func setAmount(
        _ request: Request, _ context: AppRequestContext, field: KeyPath<AccountForm, String?>,
        parse: (String?) -> Result<Int64?, AppError>,
        _ apply: (Int64?, UserID) async throws(StoreError) -> Void
    ) async throws -> Response {
        let form = try await request.decode(as: AccountForm.self, context: context)
        switch parse(form[keyPath: field]) {
        case .success(let amount):
            return try await change(request, context, refusingSelf: nil) { id throws(StoreError) in
                try await apply(amount, id)
            }
        case .failure(let problem):
            return try await show(request, context, error: problem.message, status: .unprocessableContent)
        }
    }

    /// Applies a change to the user of the path, then goes back to their page: 404 for no such user, and the page
    /// again with a 422 when `refusingSelf` is set and the user is the admin themself.
    private func change(
        _ request: Request, _ context: AppRequestContext, refusingSelf: String?,
        _ apply: (UserID) async throws(StoreError) -> Void
    ) async throws -> Response {
        let id = try context.rowID()
        if let refusingSelf, id == context.identity?.user.id {
            return try await show(request, context, error: refusingSelf, status: .unprocessableContent)
        }
        do {
            try await apply(id)
        } catch {
            if error == .notFound { throw AppError.notFound }
            throw error
        }
        return .seeOther("/admin/users/\(id)")
    }

    /// A budget typed in dollars: nil when left empty, a 422 message when it is not an amount.
    static func budget(_ text: String?) -> Result<Int64?, AppError> {
        let text = (text ?? "").trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return .success(nil) }
        guard let micros = MicroDollars.parse(text) else {
            return .failure(
                AppError(
                    .unprocessableContent, code: "invalid_budget",
                    message: "Enter a budget in dollars, like 25 or 12.50, or leave it empty."))
        }
        return .success(micros)
    }

    /// A storage quota typed in whole megabytes: nil when left empty, a 422 message when it is not one.
    static func megabytes(_ text: String?) -> Result<Int64?, AppError> {
        let text = (text ?? "").trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return .success(nil) }
        guard let megabytes = Int64(text), (0...ServerSettings.maxStorageMegabytes).contains(megabytes) else {
            return .failure(
                AppError(
                    .unprocessableContent, code: "invalid_quota",
                    message:
                        "Enter a quota in whole megabytes, from 0 to \(ServerSettings.maxStorageMegabytes), or leave it empty."
                ))
        }
        return .success(megabytes * 1_048_576)
    }

    /// The template values of a user's storage: what they store, their quota, and the quota form's value.
    private static func storageValues(_ status: StorageStatus, own: Int64?) -> [String: Any] {
        ["summary": status.summary, "is_over": status.isOver, "quota_value": own.map { String($0 / 1_048_576) } ?? ""]
    }

    /// The template values of an account.
    private static func accountValues(_ account: UserAccount) -> [String: Any] {
        var values: [String: Any] = [
            "id": account.user.id, "email": account.user.email, "label": account.user.label,
            "is_admin": account.user.isAdmin, "is_disabled": account.user.isDisabled,
        ]
        values["display_name"] = account.user.displayName
        values["budget"] = account.monthlyBudgetMicros.map(MicroDollars.display)
        values["budget_value"] = account.monthlyBudgetMicros.map(MicroDollars.decimal) ?? ""
        return values
    }
}
