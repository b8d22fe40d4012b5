import ParleyCore

/// Days written for people, the same in every locale: "1 May 2025", or "1 May" on a chart's axis.
enum DayText {
    private static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September",
        "October", "November", "December",
    ]

    /// "1 May 2025".
    static func long(_ day: UsageDay) -> String {
        "\(day.day) \(monthNames[day.month - 1]) \(day.year)"
    }

    /// "1 May".
    static func short(_ day: UsageDay) -> String {
        "\(day.day) \(monthNames[day.month - 1].prefix(3))"
    }
}
