import Foundation
import Hummingbird
import ParleyCore

/// The conversation list in sections by last activity, as chat apps show it: pinned first, then Today, Yesterday,
/// Previous 7 days, Previous 30 days, then one section a month, in the reader's time zone.
enum ConversationGroups {
    /// The cookie in which the browser's script leaves its IANA time zone; without it the list is grouped in UTC.
    static let timeZoneCookie = "parley_tz"

    /// The zone of a reader who named none.
    static let utc = TimeZone(identifier: "UTC") ?? .gmt

    /// The reader's time zone: the cookie's, when it names one, else UTC.
    static func timeZone(of request: Request) -> TimeZone {
        request.cookies[timeZoneCookie].flatMap { TimeZone(identifier: $0.value) } ?? utc
    }

    /// The cookie that keeps `zone` for a year (readable by the page's script, which sets it when it is missing).
    static func timeZoneCookie(_ zone: TimeZone, secure: Bool) -> Cookie {
        Cookie(
            name: timeZoneCookie, value: zone.identifier, maxAge: 365 * 24 * 3600, path: "/", secure: secure,
            httpOnly: false, sameSite: .lax)
    }

    /// `conversations` (newest activity first, pinned ones before the rest) as sections for the templates: each has a
    /// `heading` and its `conversations`, each of those the values `row` makes.
    static func sections(
        _ conversations: [Conversation], now: Date, timeZone: TimeZone, row: (Conversation) -> [String: Any]
    ) -> [[String: Any]] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let today = calendar.startOfDay(for: now)
        var sections: [(heading: String, rows: [[String: Any]])] = []
        for conversation in conversations {
            let heading = conversation.pinned ? "Pinned" : self.heading(conversation.updatedAt, today, calendar)
            if sections.last?.heading == heading {
                sections[sections.count - 1].rows.append(row(conversation))
            } else {
                sections.append((heading, [row(conversation)]))
            }
        }
        return sections.map { ["heading": $0.heading, "conversations": $0.rows] }
    }

    /// The section of a conversation last active at `date`, counted in whole days before `today`.
    private static func heading(_ date: Date, _ today: Date, _ calendar: Calendar) -> String {
        let days = calendar.dateComponents([.day], from: calendar.startOfDay(for: date), to: today).day ?? 0
        switch days {
        case ...0: return "Today"
        case 1: return "Yesterday"
        case 2...7: return "Previous 7 days"
        case 8...30: return "Previous 30 days"
        default:
            var format = Date.FormatStyle(date: .omitted, time: .omitted).month(.wide).year()
            format.timeZone = calendar.timeZone
            format.locale = Locale(identifier: "en_US_POSIX")
            return date.formatted(format)
        }
    }
}
