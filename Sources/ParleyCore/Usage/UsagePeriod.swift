/// The days a usage report covers, from `from` to `to` inclusive, at most `maxDays` of them.
public struct UsagePeriod: Sendable, Equatable {
    /// The longest period a report covers: a leap year.
    public static let maxDays = 366

    public let from: UsageDay
    public let to: UsageDay

    /// A period, or nil when `to` is before `from` or it spans more than `maxDays`.
    public init?(from: UsageDay, to: UsageDay) {
        guard from <= to, from.days(until: to) < Self.maxDays else { return nil }
        self.from = from
        self.to = to
    }

    /// The `count` days (1 to `maxDays`) ending with `last`.
    public static func last(_ count: Int, endingOn last: UsageDay) -> UsagePeriod {
        let span = min(max(count, 1), maxDays)
        return UsagePeriod(from: last.adding(days: 1 - span), to: last) ?? UsagePeriod(from: last, to: last)!
    }

    /// How many days the period has.
    public var dayCount: Int { from.days(until: to) + 1 }

    /// Every day of the period, in order.
    public var days: [UsageDay] { (0..<dayCount).map { from.adding(days: $0) } }
}
