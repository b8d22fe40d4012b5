import Foundation

/// Money as integer micro-dollars (millionths of a US dollar): converted, parsed and written without floating point,
/// except where a dollar amount arrives as a JSON number at the edge.
public enum MicroDollars {
    /// Micro-dollars in one dollar.
    public static let perDollar: Int64 = 1_000_000
    /// The largest amount `parse` accepts: a billion dollars.
    public static let maxParsed: Int64 = 1_000_000_000 * perDollar

    /// Micro-dollars from a dollar amount read at the edge (a configuration file, an import), rounded to the nearest
    /// and clamped to Int64's range; 0 for a value that is not finite.
    public static func from(dollars: Double) -> Int64 {
        guard dollars.isFinite else { return 0 }
        let scaled = (dollars * Double(perDollar)).rounded()
        if scaled >= 9.2e18 { return .max }
        if scaled <= -9.2e18 { return .min }
        return Int64(scaled)
    }

    /// Dollars for a JSON number (`cost_usd`).
    public static func dollars(_ micros: Int64) -> Double {
        Double(micros) / Double(perDollar)
    }

    /// Reads a dollar amount typed by a person: digits with at most six decimals, an optional leading `$`, no sign;
    /// nil for anything else or more than `maxParsed`.
    public static func parse(_ text: String) -> Int64? {
        var text = Substring(text.trimmingCharacters(in: .whitespaces))
        if text.hasPrefix("$") { text = text.dropFirst() }
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count > 1 ? parts[1] : ""
        guard !(whole.isEmpty && fraction.isEmpty), whole.count <= 10, fraction.count <= 6,
            whole.allSatisfy(\.isASCIIDigit), fraction.allSatisfy(\.isASCIIDigit)
        else { return nil }
        let wholeValue = Int64(whole.isEmpty ? "0" : whole) ?? 0
        let fractionValue = Int64(fraction.padding(toLength: 6, withPad: "0", startingAt: 0)) ?? 0
        let value = wholeValue * perDollar + fractionValue
        return value <= maxParsed ? value : nil
    }

    /// The exact decimal amount, at least two decimals and no trailing zeros beyond them: "1.25", "0.000015", "-3.00".
    public static func decimal(_ micros: Int64) -> String {
        let sign = micros < 0 ? "-" : ""
        let magnitude = micros.magnitude
        var fraction = String(magnitude % UInt64(perDollar))
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.count > 2, fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(sign)\(magnitude / UInt64(perDollar)).\(fraction)"
    }

    /// An amount for people: "$1,234.57", rounded half up to the cent; amounts under a cent are shown exactly
    /// ("$0.000015").
    public static func display(_ micros: Int64) -> String {
        let magnitude = micros.magnitude
        let sign = micros < 0 ? "-" : ""
        if magnitude != 0, magnitude < 10_000 { return sign + "$" + decimal(Int64(magnitude)) }
        let cents = (magnitude + 5_000) / 10_000
        let centsText = String(cents % 100)
        return sign + "$" + grouped(cents / 100) + "." + (centsText.count == 1 ? "0" + centsText : centsText)
    }

    /// A whole number with thousands separators: "1,234,567".
    public static func grouped(_ value: some BinaryInteger) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return (value < 0 ? "-" : "") + result
    }
}
