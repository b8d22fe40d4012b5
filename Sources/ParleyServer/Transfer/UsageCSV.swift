import Foundation
import ParleyCore

/// The usage rollup as CSV (RFC 4180, with a header line): one line per day, user, model and source (`chat`:
/// conversations, `api`: the OpenAI-compatible endpoint), money as exact dollars.
/// Cells are safe to open in a spreadsheet: text starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a
/// leading `'` so that it is never run as a formula.
enum UsageCSV {
    /// The column names.
    static let header = [
        "day", "user_id", "email", "model", "source", "messages", "input_tokens", "cached_input_tokens",
        "output_tokens",
        "cost_usd", "estimated_tokens", "estimated_cost_usd", "title_tokens", "title_cost_usd",
    ]

    /// The document for `records`.
    static func document(_ records: [UsageRecord]) -> String {
        var text = line(header)
        for record in records {
            text += line([
                record.day.description, String(record.userID), record.email ?? "", record.model, record.source.rawValue,
                String(record.totals.requests), String(record.totals.inputTokens),
                String(record.totals.cachedInputTokens),
                String(record.totals.outputTokens), MicroDollars.decimal(record.totals.costMicros),
                String(record.totals.estimatedTokens), MicroDollars.decimal(record.totals.estimatedCostMicros),
                String(record.totals.titleTokens), MicroDollars.decimal(record.totals.titleCostMicros),
            ])
        }
        return text
    }

    /// A line of cells, each neutralised and quoted when needed, ended by CRLF.
    static func line(_ cells: [String]) -> String {
        cells.map(cell).joined(separator: ",") + "\r\n"
    }

    /// One cell: a leading `'` before formula characters, and quotes (with inner quotes doubled) around text holding
    /// a comma, quote or line break.
    static func cell(_ value: String) -> String {
        let text = value.utf8.first.map { "=+-@\t\r".utf8.contains($0) } == true ? "'" + value : value
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 })
        else {
            return text
        }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
