import Hummingbird
import ParleyCore

/// The period and order an admin page shows, read from `?days=` (7, 30 or 90), or `?from=` and `?to=` (YYYY-MM-DD,
/// UTC, inclusive), and `?sort=`.
struct UsageQuery {
    /// The preset periods offered, in days.
    static let presets = [7, 30, 90]
    /// The period shown when none is asked for.
    static let defaultDays = 30

    var period: UsagePeriod
    /// The preset's length when the period is one, nil for custom dates.
    var presetDays: Int?
    var sort: UsageSort

    /// Reads the query: 400 for a date that is not YYYY-MM-DD or a period that runs backwards or spans more than
    /// `UsagePeriod.maxDays` days; a missing or unknown preset or sort gives the default.
    init(_ request: Request, today: UsageDay = .today) throws {
        let query = request.uri.queryParameters
        sort = UsageSort(query: query["sort"].map(String.init))
        let from = query["from"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        let to = query["to"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        guard from != nil || to != nil else {
            let days =
                query["days"].flatMap { Int(String($0)) }.flatMap { Self.presets.contains($0) ? $0 : nil }
                ?? Self.defaultDays
            period = UsagePeriod.last(days, endingOn: today)
            presetDays = days
            return
        }
        let problem = AppError.malformed(
            "Dates are written YYYY-MM-DD, and a period runs forwards over at most \(UsagePeriod.maxDays) days.")
        let day = { (text: String) throws(AppError) -> UsageDay in
            guard let day = UsageDay(text) else { throw problem }
            return day
        }
        let end = try to.map(day) ?? today
        let start = try from.map(day) ?? end.adding(days: 1 - Self.defaultDays)
        guard let period = UsagePeriod(from: start, to: end) else { throw problem }
        self.period = period
        presetDays = nil
    }

    /// The query string of this period with an order, for links: "days=30&sort=cost" or "from=…&to=…&sort=cost".
    func queryString(sort: UsageSort) -> String {
        periodQuery + "&sort=" + sort.rawValue
    }

    /// The query string of this period alone.
    var periodQuery: String {
        presetDays.map { "days=\($0)" } ?? "from=\(period.from)&to=\(period.to)"
    }
}
