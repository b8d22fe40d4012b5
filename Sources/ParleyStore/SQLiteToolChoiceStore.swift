import GRDB
import ParleyCore

/// The admin's choices for MCP servers and their tools, in SQLite.
public struct SQLiteToolChoiceStore: ToolChoiceStore {
    let pool: DatabasePool
    let writer: GroupCommitWriter

    /// Creates the store over an open database.
    public init(database: ParleyDatabase) {
        pool = database.pool
        writer = database.writer
    }

    public func toolChoices() async throws(StoreError) -> [StoredToolChoice] {
        try await perform {
            try pool.lookup { db in
                try Row.fetchAll(
                    db, sql: "SELECT server_id, tool, enabled, confirm FROM tool_choices ORDER BY server_id, tool"
                )
                .map { StoredToolChoice(server: $0[0], tool: $0[1], enabled: $0[2], confirm: $0[3]) }
            }
        }
    }

    public func setToolChoice(_ choice: StoredToolChoice) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO tool_choices (server_id, tool, enabled, confirm) VALUES (?, ?, ?, ?)
                        ON CONFLICT (server_id, tool) DO UPDATE SET enabled = excluded.enabled, confirm = excluded.confirm
                        """, arguments: [choice.server, choice.tool, choice.enabled, choice.confirm])
            }
        }
    }
}
