import Foundation
import GRDB

/// A moment as the store keeps it: GRDB's text for dates, "yyyy-MM-dd HH:mm:ss.SSS" in UTC, written and read with
/// integer arithmetic. GRDB's own `Date` conversion goes through `DateFormatter` one way and `Calendar` the other,
/// about 10 µs a date, which showed in the profile of a send and in pages of many messages. Years outside 1900–9999
/// (Foundation's calendar turns Julian before 1582) go through GRDB's conversion, so every date is stored and read
/// exactly as GRDB would.
struct StoredDate: DatabaseValueConvertible {
    let date: Date

    /// The current moment to the millisecond, as stored: the values a write returns equal what reading them gives.
    static var now: StoredDate {
        StoredDate(Date(timeIntervalSince1970: milliseconds(of: Date()) / 1000))
    }

    /// The milliseconds from 1970 to `date`, rounded as `DateFormatter` (so GRDB) rounds: to the nearest, halves up,
    /// so that -0.5 ms is 0 ms (rounding halves away from zero wrote some dates before 1970 a millisecond earlier).
    private static func milliseconds(of date: Date) -> Double {
        (date.timeIntervalSince1970 * 1000 + 0.5).rounded(.down)
    }

    /// Wraps a date.
    init(_ date: Date) {
        self.date = date
    }

    /// `date` to the millisecond, as stored: what a write returns equals what reading it gives.
    static func rounded(_ date: Date) -> StoredDate {
        StoredDate(Date(timeIntervalSince1970: milliseconds(of: date) / 1000))
    }

    var databaseValue: DatabaseValue {
        Self.text(of: date)?.databaseValue ?? date.databaseValue
    }

    static func fromDatabaseValue(_ value: DatabaseValue) -> StoredDate? {
        if case .string(let text) = value.storage, let date = date(from: text) { return StoredDate(date) }
        return Date.fromDatabaseValue(value).map(StoredDate.init)
    }

    /// Seconds from 1970 to 1900-01-01 and to the last second of 9999: the years converted here.
    private static let writtenSeconds: ClosedRange<Int64> = -2_208_988_800...253_402_300_799

    /// The text of a date in years 1900–9999, rounded to the millisecond as `DateFormatter` does; nil otherwise.
    static func text(of date: Date) -> String? {
        let milliseconds = milliseconds(of: date)
        guard milliseconds.isFinite, let total = Int64(exactly: milliseconds) else { return nil }
        let (seconds, millisecond) = floorDivision(total, 1000)
        guard writtenSeconds.contains(seconds) else { return nil }
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        let (year, month, day) = civil(fromDays: days)
        return String(unsafeUninitializedCapacity: 23) { buffer in
            var index = 0
            func put(_ value: Int64, digits: Int, then separator: UInt8?) {
                var remaining = value
                for position in stride(from: index + digits - 1, through: index, by: -1) {
                    buffer[position] = UInt8(ascii: "0") + UInt8(remaining % 10)
                    remaining /= 10
                }
                index += digits
                if let separator {
                    buffer[index] = separator
                    index += 1
                }
            }
            put(year, digits: 4, then: UInt8(ascii: "-"))
            put(month, digits: 2, then: UInt8(ascii: "-"))
            put(day, digits: 2, then: UInt8(ascii: " "))
            put(secondOfDay / 3600, digits: 2, then: UInt8(ascii: ":"))
            put(secondOfDay / 60 % 60, digits: 2, then: UInt8(ascii: ":"))
            put(secondOfDay % 60, digits: 2, then: UInt8(ascii: "."))
            put(millisecond, digits: 3, then: nil)
            return index
        }
    }

    /// The date of a text in exactly the stored form; nil for any other text (GRDB reads those).
    static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8(parse)
    }

    /// The date of UTF-8 text in the stored form.
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count == 23, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: " "),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: ".")
        else { return nil }
        func number(_ start: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[start..<start + count] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
            let minute = number(14, 2), let second = number(17, 2), let millisecond = number(20, 3),
            year >= 1900, (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let seconds = days(fromYear: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: Double(seconds * 1000 + millisecond) / 1000)
    }

    /// `value / divisor` rounded down, and the remainder that goes with it (never negative).
    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = value / divisor - (value % divisor < 0 ? 1 : 0)
        return (quotient, value - quotient * divisor)
    }

    /// The days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`).
    private static func days(fromYear year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = floorDivision(shiftedYear, 400).quotient
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of the proleptic Gregorian calendar that is `days` after 1970-01-01 (`civil_from_days`).
    private static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = floorDivision(shifted, 146_097).quotient
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The number of days in a month of a year.
    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

extension Row {
    /// The date in column `index`, read as the store writes it.
    func date(_ index: Int) -> Date {
        (self[index] as StoredDate).date
    }

    /// The date in the named column, read as the store writes it.
    func date(_ column: String) -> Date {
        (self[column] as StoredDate).date
    }

    /// The date in the named column, or nil when it is NULL.
    func optionalDate(_ column: String) -> Date? {
        (self[column] as StoredDate?)?.date
    }
}
