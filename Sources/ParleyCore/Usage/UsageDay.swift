import Foundation

/// A calendar day in UTC, the unit of the usage rollup, written "YYYY-MM-DD". Days are counted from 1970-01-01 with
/// integer arithmetic (the proleptic Gregorian calendar), without a `Calendar`.
public struct UsageDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// The UTC day of a moment.
    public init(_ date: Date) {
        self.init(daysSinceEpoch: Int((date.timeIntervalSince1970 / 86_400).rounded(.down)))
    }

    /// Reads exactly "YYYY-MM-DD" naming a real day of the years 1970 to 9999; nil for anything else.
    public init?(_ text: String) {
        let fields = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.count == 10, fields.count == 3, fields[0].count == 4, fields[1].count == 2, fields[2].count == 2,
            fields.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
            let year = Int(fields[0]), let month = Int(fields[1]), let day = Int(fields[2]),
            (1970...9999).contains(year), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        let read = UsageDay(daysSinceEpoch: UsageDay(year: year, month: month, day: day).daysSinceEpoch)
        guard read.month == month, read.day == day else { return nil }
        self = read
    }

    private init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day `days` days after 1970-01-01.
    private init(daysSinceEpoch days: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        self.init(
            year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month: month,
            day: dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
    }

    /// How many days this day is after 1970-01-01.
    private var daysSinceEpoch: Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        return era * 146_097 + yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear - 719_468
    }

    /// Today, in UTC.
    public static var today: UsageDay { UsageDay(Date()) }

    /// Midnight UTC at the start of the day.
    public var start: Date { Date(timeIntervalSince1970: Double(daysSinceEpoch) * 86_400) }

    /// The day `count` days later (earlier when negative).
    public func adding(days count: Int) -> UsageDay {
        UsageDay(daysSinceEpoch: daysSinceEpoch + count)
    }

    /// The number of days from this day to `other` (negative when `other` is earlier).
    public func days(until other: UsageDay) -> Int {
        other.daysSinceEpoch - daysSinceEpoch
    }

    /// The first day of this day's month.
    public var firstOfMonth: UsageDay { UsageDay(year: year, month: month, day: 1) }

    /// The first day of the next month, when monthly budgets start again.
    public var firstOfNextMonth: UsageDay {
        month == 12 ? UsageDay(year: year + 1, month: 1, day: 1) : UsageDay(year: year, month: month + 1, day: 1)
    }

    /// "YYYY-MM-DD", as stored.
    public var description: String {
        let pad = { (value: Int, width: Int) in
            String(repeating: "0", count: max(0, width - String(value).count)) + String(value)
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    public static func < (lhs: UsageDay, rhs: UsageDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}
