import Foundation
import Hummingbird
import ParleyCore

/// Groups for admins: the list with each group's spend this month, creating and deleting groups, members, the
/// models a group opens (a model some group restricts is for those groups' members alone), and a group's monthly
/// budget for its members together.
struct AdminGroupsController {
    /// The longest group name accepted.
    static let maxNameLength = 100
    let accounts: any AccountStore
    let chat: ChatService
    let groups: any GroupStore
    let pages: PageRenderer

    /// Adds the routes to the admin group.
    func addRoutes(to admin: RouterGroup<AppRequestContext>) {
        admin.get("groups") { _, context in try await list(context) }
        admin.post("groups") { request, context in try await create(request, context) }
        admin.get("groups/{id}") { _, context in try await show(context) }
        admin.post("groups/{id}/members") { request, context in try await addMember(request, context) }
        admin.post("groups/{id}/members/remove") { request, context in
            let form = try await request.decode(as: GroupForm.self, context: context)
            guard let user = form.user else { throw AppError.malformed("Name the member to remove (`user`).") }
            return try await changing(context) { id throws(StoreError) in
                try await groups.removeMember(userID: user, groupID: id)
            }
        }
        admin.post("groups/{id}/models") { request, context in
            let form = try await request.decode(as: GroupForm.self, context: context)
            let models = form.models ?? []
            guard models.count <= 1_000, models.allSatisfy({ !$0.isEmpty && $0.count <= 200 }) else {
                return try await show(context, error: "Choose models from the list.", status: .unprocessableContent)
            }
            return try await changing(context) { id throws(StoreError) in
                try await groups.setModels(models, groupID: id)
            }
        }
        admin.post("groups/{id}/budget") { request, context in
            let form = try await request.decode(as: GroupForm.self, context: context)
            switch AdminUsersController.budget(form.budget) {
            case .success(let micros):
                return try await changing(context) { id throws(StoreError) in
                    try await groups.setMonthlyBudget(micros, groupID: id)
                }
            case .failure(let problem):
                return try await show(context, error: problem.message, status: .unprocessableContent)
            }
        }
        admin.post("groups/{id}/delete") { _, context in
            try await groups.deleteGroup(id: try context.rowID())
            return Response.seeOther("/admin/groups")
        }
    }

    /// The groups' forms: a name, a member's email (to add) or id (to remove), the models opened (`models[]`), a
    /// budget in dollars.
    struct GroupForm: Decodable {
        var name: String?
        var email: String?
        var user: UserID?
        var models: [String]?
        var budget: String?
    }

    private func list(_ context: AppRequestContext, error: String? = nil, status: HTTPResponse.Status = .ok)
        async throws -> Response
    {
        var values: [String: Any] = ["nav_groups": true, "group_spend": try await Self.monthSpend(groups)]
        values["error"] = error
        return pages.page("admin_groups", title: "Groups", context: context, values: values, status: status)
    }

    /// The template values of every group with its members' spend this month (UTC), for this page and the dashboard.
    static func monthSpend(_ groups: any GroupStore) async throws -> [String: Any] {
        let month = UsageDay.today.firstOfMonth
        async let all = groups.groups()
        async let spend = groups.spend(since: month)
        let spent = try await spend
        return [
            "month": DayText.long(month),
            "groups": try await all.map { group -> [String: Any] in
                var row = groupValues(group)
                row["spent"] = MicroDollars.display(spent[group.id] ?? 0)
                return row
            },
        ]
    }

    private func create(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let form = try await request.decode(as: GroupForm.self, context: context)
        let name = (form.name ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...Self.maxNameLength).contains(name.count),
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            return try await list(
                context, error: "A group's name needs 1 to \(Self.maxNameLength) characters.",
                status: .unprocessableContent)
        }
        do {
            let group = try await groups.createGroup(name: name)
            return .seeOther("/admin/groups/\(group.id)")
        } catch {
            guard error == .duplicate else { throw error }
            return try await list(context, error: "A group named “\(name)” exists already.", status: .conflict)
        }
    }

    private func show(_ context: AppRequestContext, error: String? = nil, status: HTTPResponse.Status = .ok)
        async throws -> Response
    {
        let id = try context.rowID()
        guard let group = try await groups.group(id: id) else { throw AppError.notFound }
        let members = try await groups.members(groupID: id)
        let opened = Set(group.models)
        // The catalog's models, and any the group opens that the catalog no longer offers.
        let offered = chat.catalog.models.map(\.id)
        let choices = offered + group.models.filter { !offered.contains($0) }
        var values: [String: Any] = [
            "nav_groups": true,
            "group": Self.groupValues(group),
            "members": members.map { ["id": $0.id, "email": $0.email] as [String: Any] },
            "model_choices": choices.map { ["model": $0, "checked": opened.contains($0)] as [String: Any] },
        ]
        values["error"] = error
        return pages.page("admin_group", title: group.name, context: context, values: values, status: status)
    }

    private func addMember(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let form = try await request.decode(as: GroupForm.self, context: context)
        let email = (form.email ?? "").trimmingCharacters(in: .whitespaces)
        guard !email.unicodeScalars.contains("\0"), let user = try await accounts.user(email: email) else {
            let problem = "There is no account with the email “\(email)”."
            return try await show(context, error: problem, status: .notFound)
        }
        return try await changing(context) { id throws(StoreError) in
            try await groups.addMember(userID: user.id, groupID: id)
        }
    }

    /// Applies a change to the group of the path, then goes back to its page (no such group: the store's
    /// `.notFound`, a 404).
    private func changing(_ context: AppRequestContext, _ apply: (GroupID) async throws(StoreError) -> Void)
        async throws -> Response
    {
        let id = try context.rowID()
        try await apply(id)
        return .seeOther("/admin/groups/\(id)")
    }

    /// The template values of a group.
    private static func groupValues(_ group: UserGroup) -> [String: Any] {
        var values: [String: Any] = [
            "id": group.id, "name": group.name, "from_sso": group.fromSSO, "members": group.memberCount,
            "models": group.models.joined(separator: ", "),
            "budget_value":
                group.monthlyBudgetMicros.map(MicroDollars.decimal) ?? "",
        ]
        values["budget"] = group.monthlyBudgetMicros.map(MicroDollars.display)
        return values
    }
}
