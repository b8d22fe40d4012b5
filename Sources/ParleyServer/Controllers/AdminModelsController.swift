import Foundation
import Hummingbird
import ParleyCore

/// Model prices for admins: each model's price in force (as replies are charged) beside its list price, and a form
/// per model that adds a price version from now on; replies already charged keep the version they were charged at.
struct AdminModelsController {
    /// Earlier versions listed under each model.
    static let historyRows = 5
    let chat: ChatService
    let pages: PageRenderer
    let usage: any UsageStore

    /// Adds the routes to the admin group.
    func addRoutes(to admin: RouterGroup<AppRequestContext>) {
        admin.get("models") { _, context in try await list(context) }
        admin.post("models") { request, context in try await setPrice(request, context) }
    }

    private func list(_ context: AppRequestContext, error: String? = nil, status: HTTPResponse.Status = .ok)
        async throws -> Response
    {
        let versions = Dictionary(grouping: try await usage.priceVersions(), by: \.modelID)
        let catalog = chat.catalog.models
        let retired = versions.keys.filter { id in !catalog.contains { $0.id == id } }.sorted()
        let models = catalog.map { ($0.id, Optional($0)) } + retired.map { ($0, nil) }
        var values: [String: Any] = [
            "nav_models": true,
            "models": models.map { id, model -> [String: Any] in
                let history = (versions[id] ?? []).reversed()
                let list = model.map { TokenRates($0.price) }
                let current = history.first?.rates ?? list ?? TokenRates()
                var row: [String: Any] = [
                    "id": id, "provider": model?.providerID ?? "no longer offered",
                    "input": MicroDollars.decimal(current.input),
                    "cached_input": MicroDollars.decimal(current.cachedInput),
                    "output": MicroDollars.decimal(current.output),
                    "history": history.prefix(Self.historyRows).map { version -> [String: Any] in
                        ["since": version.effectiveFrom.formatted(.iso8601), "rates": Self.ratesText(version.rates)]
                    },
                ]
                if let list, list != history.first?.rates { row["list_price"] = Self.ratesText(list) }
                return row
            },
        ]
        values["error"] = error
        return pages.page("admin_models", title: "Model prices", context: context, values: values, status: status)
    }

    /// A model's new prices, in dollars per million tokens.
    struct PriceForm: Decodable {
        var model: String?
        var input: String?
        var cachedInput: String?
        var output: String?

        enum CodingKeys: String, CodingKey {
            case model, input, output
            case cachedInput = "cached_input"
        }
    }

    private func setPrice(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let form = try await request.decode(as: PriceForm.self, context: context)
        let modelID = form.model ?? ""
        if chat.catalog.model(modelID) == nil {
            guard try await usage.priceVersions().contains(where: { $0.modelID == modelID }) else {
                throw AppError.notFound
            }
        }
        guard let input = form.input.flatMap(MicroDollars.parse),
            let cachedInput = form.cachedInput.flatMap(MicroDollars.parse),
            let output = form.output.flatMap(MicroDollars.parse)
        else {
            return try await list(
                context,
                error: "Prices for \(modelID) are dollars per million tokens, like 2.50, with at most six decimals.",
                status: .unprocessableContent)
        }
        _ = try await usage.setPrice(
            modelID: modelID, rates: TokenRates(input: input, cachedInput: cachedInput, output: output))
        return .seeOther("/admin/models")
    }

    /// Rates written for people: "$2.50 in · $1.25 cached · $10.00 out per million tokens".
    private static func ratesText(_ rates: TokenRates) -> String {
        "$\(MicroDollars.decimal(rates.input)) in · $\(MicroDollars.decimal(rates.cachedInput)) cached · "
            + "$\(MicroDollars.decimal(rates.output)) out per million tokens"
    }
}
