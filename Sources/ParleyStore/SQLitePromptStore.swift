import Foundation
import GRDB
import ParleyCore

/// Saved prompts and the groups each is shared with, in SQLite.
public struct SQLitePromptStore: PromptStore {
    let pool: DatabasePool
    let writer: GroupCommitWriter

    /// Creates the store over an open database.
    public init(database: ParleyDatabase) {
        pool = database.pool
        writer = database.writer
    }

    /// Who may see a prompt, and its groups.
    private static let sharing = SharedVisibility(
        alias: "p", owner: "user_id", groupsTable: "prompt_groups", key: "prompt_id")

    /// A prompt's columns with its groups, one id a line.
    private static let columns = "SELECT p.*, \(sharing.groupsColumn) FROM prompts p"

    /// Whether the prompt `p` is visible to the user (arguments: is admin, user id, user id).
    private static let visible = sharing.visibleCondition

    public func createPrompt(_ prompt: Prompt) async throws(StoreError) -> Prompt {
        try await perform {
            try await writer.write { db in
                let now = StoredDate.now
                try db.cachedStatement(
                    sql: """
                        INSERT INTO prompts (user_id, title, command, body, visibility, created_at, updated_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """
                ).execute(arguments: Self.fields(of: prompt) + [now, now])
                let id = db.lastInsertedRowID
                try Self.sharing.setGroups(prompt.groupIDs, visibility: prompt.visibility, of: id, db)
                return try Self.fetch(id, db) ?? prompt
            }
        }
    }

    public func updatePrompt(_ prompt: Prompt) async throws(StoreError) -> Prompt {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(
                    sql: """
                        UPDATE prompts SET user_id = ?, title = ?, command = ?, body = ?, visibility = ?, updated_at = ?
                        WHERE id = ?
                        """
                ).execute(arguments: Self.fields(of: prompt) + [StoredDate.now, prompt.id])
                guard db.changesCount == 1 else { throw StoreError.notFound }
                try Self.sharing.setGroups(prompt.groupIDs, visibility: prompt.visibility, of: prompt.id, db)
                guard let updated = try Self.fetch(prompt.id, db) else { throw StoreError.notFound }
                return updated
            }
        }
    }

    public func deletePrompt(id: PromptID) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "DELETE FROM prompts WHERE id = ?").execute(arguments: [id])
                guard db.changesCount == 1 else { throw StoreError.notFound }
            }
        }
    }

    public func prompt(id: PromptID, visibleTo userID: UserID, isAdmin: Bool) async throws(StoreError) -> Prompt? {
        try await perform {
            try pool.lookup { db in
                try Row.fetchOne(
                    db.cachedStatement(sql: Self.columns + " WHERE p.id = ? AND " + Self.visible),
                    arguments: [id, isAdmin, userID, userID]
                ).map(Prompt.init(row:))
            }
        }
    }

    public func prompts(visibleTo userID: UserID, isAdmin: Bool, matching query: String, limit: Int)
        async throws(StoreError) -> [Prompt]
    {
        try await perform {
            try pool.lookup { db in
                try Row.fetchAll(
                    db.cachedStatement(
                        sql: Self.columns + """
                             WHERE \(Self.visible)
                               AND (instr(p.command, lower(?)) > 0 OR instr(lower(p.title), lower(?)) > 0)
                             ORDER BY instr(p.command, lower(?)) <> 1, p.command, p.id
                             LIMIT ?
                            """), arguments: [isAdmin, userID, userID, query, query, query, limit]
                ).map(Prompt.init(row:))
            }
        }
    }

    public func commands(authorID: UserID) async throws(StoreError) -> Set<String> {
        try await perform {
            try pool.lookup { db in
                Set(
                    try String.fetchAll(
                        db.cachedStatement(sql: "SELECT command FROM prompts WHERE user_id = ?"),
                        arguments: [authorID]))
            }
        }
    }

    /// The prompt with this id, whoever may see it, or nil.
    private static func fetch(_ id: PromptID, _ db: Database) throws -> Prompt? {
        try Row.fetchOne(db.cachedStatement(sql: columns + " WHERE p.id = ?"), arguments: [id]).map(Prompt.init(row:))
    }

    /// The stored fields, in the order of the insert and the update.
    private static func fields(of prompt: Prompt) -> StatementArguments {
        [prompt.authorID, prompt.title, prompt.command, prompt.body, prompt.visibility.rawValue]
    }

}

extension Prompt {
    /// A prompt from a row of `columns`, its groups' ids sorted.
    init(row: Row) {
        self.init(
            id: row["id"], authorID: row["user_id"], title: row["title"], command: row["command"], body: row["body"],
            visibility: Visibility(rawValue: row["visibility"]) ?? .private, groupIDs: SharedVisibility.groupIDs(row),
            createdAt: row.date("created_at"), updatedAt: row.date("updated_at"))
    }
}
