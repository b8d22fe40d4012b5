import Foundation
import Hummingbird
import ParleyCore

/// The admin cost dashboard (with each group's spend this month) and its CSV download, read from the usage rollup.
struct AdminDashboardController {
    /// Users listed on the dashboard; the CSV has them all.
    static let userRows = 100
    let pages: PageRenderer
    let usage: any UsageStore
    let groups: any GroupStore

    /// Adds the routes to the admin group.
    func addRoutes(to admin: RouterGroup<AppRequestContext>) {
        admin.get { request, context in try await dashboard(request, context) }
        admin.get("usage.csv") { request, _ in try await csv(request) }
    }

    private func dashboard(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let query = try UsageQuery(request)
        async let groupSpend = AdminGroupsController.monthSpend(groups)
        async let assistantSpend = usage.assistantSpend(period: query.period)
        let data = try await usage.dashboard(period: query.period, sort: query.sort, userLimit: Self.userRows)
        var values: [String: Any] = [
            "nav_dashboard": true,
            "period": UsageViews.period(query, path: "/admin"),
            "totals": UsageViews.figures(data.totals),
            "active_users": MicroDollars.grouped(data.activeUsers),
            "chart": UsageChart.values(data.daily, period: query.period, caption: "Spend per day by model"),
            "user_table": [
                "id": "users", "title": "Users", "rows": data.users.map(UsageViews.userRow),
                "headers": UsageViews.headers(query, path: "/admin", fragment: "users", nameLabel: "User"),
            ],
            "model_table": [
                "id": "models", "title": "Models", "rows": data.models.map(UsageViews.modelRow),
                "headers": UsageViews.headers(query, path: "/admin", fragment: "models", nameLabel: "Model"),
            ],
        ]
        values["group_spend"] = try await groupSpend
        values["assistant_spend"] = try await assistantSpend.map { row in
            [
                "name": row.name, "conversations": MicroDollars.grouped(Int64(row.conversations)),
                "replies": MicroDollars.grouped(Int64(row.replies)), "cost": MicroDollars.display(row.costMicros),
            ]
        }
        if data.activeUsers > data.users.count {
            values["more_users"] = ["shown": data.users.count, "total": data.activeUsers]
        }
        return pages.page("admin", title: "Usage and costs", context: context, values: values)
    }

    private func csv(_ request: Request) async throws -> Response {
        let query = try UsageQuery(request)
        let records = try await usage.records(period: query.period)
        return .download(
            ByteBuffer(string: UsageCSV.document(records)), contentType: "text/csv; charset=utf-8",
            baseName: "parley-usage-\(query.period.from)-to-\(query.period.to)", fallbackName: "parley-usage",
            fileExtension: "csv")
    }
}
