import Logging
import ParleyCore
import PostgresNIO

/// The admin's choices for MCP servers and their tools, in PostgreSQL.
public struct PostgresToolChoiceStore: ToolChoiceStore {
    let client: PostgresClient
    let logger: Logger

    /// Creates the store over a database.
    public init(database: PostgresStorage) {
        client = database.client
        logger = database.logger
    }

    public func toolChoices() async throws(StoreError) -> [StoredToolChoice] {
        try await perform {
            try await client.query(
                "SELECT server_id, tool, enabled, confirm FROM tool_choices ORDER BY server_id, tool", logger: logger
            ).collect().map { row in
                let (server, tool, enabled, confirm) = try row.decode((String, String, Bool, Bool).self)
                return StoredToolChoice(server: server, tool: tool, enabled: enabled, confirm: confirm)
            }
        }
    }

    public func setToolChoice(_ choice: StoredToolChoice) async throws(StoreError) {
        try await perform {
            try await client.query(
                """
                INSERT INTO tool_choices (server_id, tool, enabled, confirm)
                VALUES (\(choice.server), \(choice.tool), \(choice.enabled), \(choice.confirm))
                ON CONFLICT (server_id, tool) DO UPDATE SET enabled = excluded.enabled, confirm = excluded.confirm
                """, logger: logger)
        }
    }
}
