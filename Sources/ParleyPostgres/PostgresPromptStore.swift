import Foundation
import Logging
import ParleyCore
import PostgresNIO

/// Saved prompts and the groups each is shared with, in PostgreSQL.
public struct PostgresPromptStore: PromptStore {
    let client: PostgresClient
    let logger: Logger

    /// Creates the store over a database.
    public init(database: PostgresStorage) {
        client = database.client
        logger = database.logger
    }

    /// Who may see a prompt, and its groups.
    private static let sharing = PostgresSharing(
        alias: "p", owner: "user_id", groupsTable: "prompt_groups", key: "prompt_id")

    /// A prompt's columns with its groups.
    private static let columns = "SELECT p.*, \(sharing.groupsColumn) FROM prompts p"

    public func createPrompt(_ prompt: Prompt) async throws(StoreError) -> Prompt {
        let now = StoredMoment.now
        return try await perform {
            try await client.withTransaction(logger: logger) { connection in
                let id =
                    try await connection.query(
                        """
                        INSERT INTO prompts (user_id, title, command, body, visibility, created_at, updated_at)
                        VALUES (\(prompt.authorID), \(prompt.title), \(prompt.command), \(prompt.body),
                        \(prompt.visibility.rawValue), \(now), \(now)) RETURNING id
                        """, logger: logger
                    ).rows().first?["id"].decode(Int64.self) ?? 0
                try await Self.sharing.setGroups(
                    prompt.groupIDs, shared: prompt.visibility == .groups, of: id, on: connection, logger: logger)
                return try await fetch(id, on: connection) ?? prompt
            }
        }
    }

    public func updatePrompt(_ prompt: Prompt) async throws(StoreError) -> Prompt {
        let now = StoredMoment.now
        return try await perform {
            try await client.withTransaction(logger: logger) { connection in
                let updated = try await connection.query(
                    """
                    UPDATE prompts SET user_id = \(prompt.authorID), title = \(prompt.title),
                    command = \(prompt.command), body = \(prompt.body), visibility = \(prompt.visibility.rawValue),
                    updated_at = \(now) WHERE id = \(prompt.id) RETURNING 1
                    """, logger: logger
                ).rows()
                guard updated.count == 1 else { throw StoreError.notFound }
                try await Self.sharing.setGroups(
                    prompt.groupIDs, shared: prompt.visibility == .groups, of: prompt.id, on: connection,
                    logger: logger)
                guard let stored = try await fetch(prompt.id, on: connection) else { throw StoreError.notFound }
                return stored
            }
        }
    }

    public func deletePrompt(id: PromptID) async throws(StoreError) {
        try await perform {
            let deleted = try await client.query("DELETE FROM prompts WHERE id = \(id) RETURNING 1", logger: logger)
                .rows()
            guard deleted.count == 1 else { throw StoreError.notFound }
        }
    }

    public func prompt(id: PromptID, visibleTo userID: UserID, isAdmin: Bool) async throws(StoreError) -> Prompt? {
        try await perform {
            let binds = PostgresBinds()
            let sql = """
                \(Self.columns) WHERE p.id = \(try binds(id))
                AND \(try Self.sharing.visible(to: userID, isAdmin: isAdmin, binds))
                """
            return try await client.query(binds.query(sql), logger: logger).rows().first.map(Prompt.init(row:))
        }
    }

    public func prompts(visibleTo userID: UserID, isAdmin: Bool, matching query: String, limit: Int)
        async throws(StoreError) -> [Prompt]
    {
        try await perform {
            let binds = PostgresBinds()
            let needle = "lower(\(try binds(query)))"
            // `strpos` finds the text as it is, never as a pattern.
            let sql = """
                \(Self.columns) WHERE \(try Self.sharing.visible(to: userID, isAdmin: isAdmin, binds))
                AND (strpos(p.command, \(needle)) > 0 OR strpos(lower(p.title), \(needle)) > 0)
                ORDER BY strpos(p.command, \(needle)) <> 1, p.command COLLATE "C", p.id
                LIMIT \(try binds(limit))
                """
            return try await client.query(binds.query(sql), logger: logger).rows().map(Prompt.init(row:))
        }
    }

    public func commands(authorID: UserID) async throws(StoreError) -> Set<String> {
        try await perform {
            Set(
                try await client.query("SELECT command FROM prompts WHERE user_id = \(authorID)", logger: logger)
                    .collect().map { try $0.decode(String.self) })
        }
    }

    /// The prompt with this id, whoever may see it, or nil.
    private func fetch(_ id: PromptID, on connection: PostgresConnection) async throws -> Prompt? {
        try await connection.query("\(unescaped: Self.columns) WHERE p.id = \(id)", logger: logger).rows().first
            .map(Prompt.init(row:))
    }
}

extension Prompt {
    /// A prompt from a row of `PostgresPromptStore`'s columns.
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            id: try row["id"].decode(Int64.self), authorID: try row["user_id"].decode(Int64.self),
            title: try row["title"].decode(String.self), command: try row["command"].decode(String.self),
            body: try row["body"].decode(String.self),
            visibility: Visibility(rawValue: try row["visibility"].decode(String.self)) ?? .private,
            groupIDs: try row["groups"].decode([Int64].self), createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at"))
    }
}
