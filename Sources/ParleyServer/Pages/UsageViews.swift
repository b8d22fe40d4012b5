import ParleyCore

/// Template values the admin pages share: the period picker, a set of figures, sortable table headers and rows.
enum UsageViews {
    /// The period picker of the page at `path`: preset links, the custom dates, and the CSV download of the same
    /// period.
    static func period(_ query: UsageQuery, path: String) -> [String: Any] {
        [
            "path": path, "sort": query.sort.rawValue, "from": query.period.from.description,
            "to": query.period.to.description,
            "label": "\(DayText.long(query.period.from)) to \(DayText.long(query.period.to)) (UTC)",
            "presets": UsageQuery.presets.map { days -> [String: Any] in
                [
                    "days": days, "href": "\(path)?days=\(days)&sort=\(query.sort.rawValue)",
                    "current": query.presetDays == days,
                ]
            },
            "csv_href": "/admin/usage.csv?" + query.periodQuery,
        ]
    }

    /// The figures of some totals, written for people.
    static func figures(_ totals: UsageTotals) -> [String: Any] {
        [
            "requests": MicroDollars.grouped(totals.requests), "input": MicroDollars.grouped(totals.inputTokens),
            "cached_input": MicroDollars.grouped(totals.cachedInputTokens),
            "output": MicroDollars.grouped(totals.outputTokens),
            "reasoning": MicroDollars.grouped(totals.reasoningTokens),
            "cost": MicroDollars.display(totals.costMicros),
            "estimated_tokens": MicroDollars.grouped(totals.estimatedTokens),
            "estimated_cost": MicroDollars.display(totals.estimatedCostMicros),
            "title_tokens": MicroDollars.grouped(totals.titleTokens),
            "title_cost": MicroDollars.display(totals.titleCostMicros),
            "chat_requests": MicroDollars.grouped(totals.requests - totals.apiRequests),
            "chat_cost": MicroDollars.display(totals.costMicros - totals.apiCostMicros),
            "api_requests": MicroDollars.grouped(totals.apiRequests),
            "api_tokens": MicroDollars.grouped(totals.apiTokens),
            "api_cost": MicroDollars.display(totals.apiCostMicros),
            "document_tokens": MicroDollars.grouped(totals.documentTokens),
        ]
    }

    /// The header cells of a usage table on the page at `path`: each sortable column a link to the page sorted by it
    /// (back at `#fragment`), the current one marked with `aria-sort`.
    static func headers(_ query: UsageQuery, path: String, fragment: String, nameLabel: String) -> [[String: Any]] {
        let columns: [(String, UsageSort?)] = [
            (nameLabel, .name), ("Messages", .requests), ("Input tokens", .input),
            ("Cached input", nil), ("Output tokens", .output), ("Reasoning", nil), ("Spend", .cost),
        ]
        return columns.map { label, sort in
            var header: [String: Any] = ["label": label, "numeric": sort != .name]
            if let sort {
                header["href"] = "\(path)?\(query.queryString(sort: sort))#\(fragment)"
                if sort == query.sort { header["aria_sort"] = sort == .name ? "ascending" : "descending" }
            }
            return header
        }
    }

    /// A row of the users table: the figures, the user's name, and a link unless the account is deleted.
    static func userRow(_ row: UserUsage) -> [String: Any] {
        var values = figures(row.totals)
        values["name"] = row.email ?? "Deleted user #\(row.userID)"
        if row.email != nil { values["href"] = "/admin/users/\(row.userID)" }
        return values
    }

    /// A row of the models table.
    static func modelRow(_ row: ModelUsage) -> [String: Any] {
        var values = figures(row.totals)
        values["name"] = row.model
        return values
    }
}
