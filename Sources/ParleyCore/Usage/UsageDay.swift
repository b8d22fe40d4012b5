import Foundation

/// A calendar day in UTC, the unit of the usage rollup, written "YYYY-MM-DD".
public struct UsageDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// The UTC day of a moment.
    public init(_ date: Date) {
        let parts = Self.calendar.dateComponents([.year, .month, .day], from: date)
        self.init(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1)
    }

    /// Reads exactly "YYYY-MM-DD" naming a real day of the years 1970 to 9999; nil for anything else.
    public init?(_ text: String) {
        let fields = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.count == 10, fields.count == 3, fields[0].count == 4, fields[1].count == 2, fields[2].count == 2,
              fields.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
              let year = Int(fields[0]), let month = Int(fields[1]), let day = Int(fields[2]), (1970...9999).contains(year),
              let date = Self.calendar.date(from: DateComponents(year: year, month: month, day: day)) else { return nil }
        let read = UsageDay(date)
        guard read.year == year, read.month == month, read.day == day else { return nil }
        self = read
    }

    private init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Today, in UTC.
    public static var today: UsageDay { UsageDay(Date()) }

    /// Midnight UTC at the start of the day.
    public var start: Date {
        Self.calendar.date(from: DateComponents(year: year, month: month, day: day)) ?? Date(timeIntervalSince1970: 0)
    }

    /// The day `count` days later (earlier when negative).
    public func adding(days count: Int) -> UsageDay {
        UsageDay(start.addingTimeInterval(Double(count) * 86_400))
    }

    /// The number of days from this day to `other` (negative when `other` is earlier).
    public func days(until other: UsageDay) -> Int {
        Int((other.start.timeIntervalSince(start) / 86_400).rounded())
    }

    /// The first day of this day's month.
    public var firstOfMonth: UsageDay { UsageDay(year: year, month: month, day: 1) }

    /// The first day of the next month, when monthly budgets start again.
    public var firstOfNextMonth: UsageDay {
        month == 12 ? UsageDay(year: year + 1, month: 1, day: 1) : UsageDay(year: year, month: month + 1, day: 1)
    }

    /// "YYYY-MM-DD", as stored.
    public var description: String {
        let pad = { (value: Int, width: Int) in String(repeating: "0", count: max(0, width - String(value).count)) + String(value) }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    public static func < (lhs: UsageDay, rhs: UsageDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}
