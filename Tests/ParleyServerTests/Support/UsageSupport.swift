import Foundation
import GRDB
import ParleyCore
import ParleyStore
import Testing

extension TestServer {
    /// A second connection pool on the server's database file, for checking what was stored.
    func database() throws -> ParleyDatabase {
        try ParleyDatabase(directory: dataDirectory)
    }
}

extension ParleyDatabase {
    /// An integer one SQL query answers (a sum, a count, an id), read off the cooperative pool.
    func integer(_ sql: String, _ arguments: StatementArguments = []) async throws -> Int64 {
        try await pool.read { db in try Int64.fetchOne(db, sql: sql, arguments: arguments) ?? 0 }
    }

    /// The id of the user with this email.
    func userID(_ email: String) async throws -> Int64 {
        try await integer("SELECT id FROM users WHERE email = ?", [email])
    }
}

extension Browser {
    /// Sets a model's price, in dollars per million tokens, through the admin form; the browser must be an admin's.
    mutating func setPrice(_ model: String, input: String, cachedInput: String = "0", output: String) async throws {
        let response = try await post(
            "/admin/models", form: ["model": model, "input": input, "cached_input": cachedInput, "output": output])
        guard response.status == 303 else {
            throw TestFailure("setting the price of \(model) answered \(response.status)")
        }
    }
}

extension APIClient {
    /// Sends a message and waits for the reply's `done` event; throws when the send is refused.
    func reply(_ conversation: Int64, _ content: String) async throws -> ReceivedEvent {
        let sent = try await send(conversation, content)
        guard sent.status == 202, let reply = try sent.json()["assistant_message_id"] as? Int else {
            throw TestFailure("sending answered \(sent.status): \(sent.body)")
        }
        return try #require(try await events(conversation, lastEventID: "\(reply)0000000").untilDone().done)
    }
}

extension ReceivedEvent {
    /// The `cost_usd` of a `done` event, in micro-dollars.
    var costMicros: Int64 {
        MicroDollars.from(dollars: (json["usage"] as? [String: Any])?["cost_usd"] as? Double ?? -1)
    }
}

/// The total of a usage CSV's money column (`cost_usd` unless named; money is never quoted), in micro-dollars.
func csvTotal(_ csv: String, column: String = "cost_usd") -> Int64 {
    let lines = csv.split(separator: "\r\n")
    guard let index = lines.first?.split(separator: ",").firstIndex(of: Substring(column)) else { return -1 }
    return lines.dropFirst().reduce(0) { total, line in
        let cells = line.split(separator: ",", omittingEmptySubsequences: false)
        return total
            + (cells.indices.contains(index)
                ? MicroDollars.parse(String(cells[index])) ?? -1_000_000_000 : -1_000_000_000)
    }
}
