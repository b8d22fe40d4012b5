import Foundation
import GRDB
import ParleyCore

/// Assistants and the groups each is shared with, in SQLite.
public struct SQLiteAssistantStore: AssistantStore {
    let pool: DatabasePool
    let writer: GroupCommitWriter

    /// Creates the store over an open database.
    public init(database: ParleyDatabase) {
        pool = database.pool
        writer = database.writer
    }

    /// Who may see an assistant, and its groups.
    private static let sharing = SharedVisibility(
        alias: "a", owner: "author_id", groupsTable: "assistant_groups", key: "assistant_id")

    /// An assistant's columns (its icon's bytes aside) with its groups, one id a line.
    private static let columns = """
        SELECT a.id, a.author_id, a.name, a.description, a.icon, a.instructions, a.model, a.generation_settings,
               a.starters, a.visibility, a.version, a.created_at, a.updated_at, a.icon_image IS NOT NULL AS has_icon,
               \(sharing.groupsColumn)
        FROM assistants a
        """

    public func createAssistant(_ assistant: Assistant) async throws(StoreError) -> Assistant {
        try await perform {
            try await writer.write { db in
                let now = StoredDate.now
                try db.cachedStatement(
                    sql: """
                        INSERT INTO assistants (author_id, name, description, icon, instructions, model,
                                                generation_settings, starters, visibility, version, created_at,
                                                updated_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)
                        """
                ).execute(arguments: Self.fields(of: assistant) + [now, now])
                let id = db.lastInsertedRowID
                try Self.sharing.setGroups(assistant.groupIDs, visibility: assistant.visibility, of: id, db)
                return try Self.fetch(id, db) ?? assistant
            }
        }
    }

    public func updateAssistant(_ assistant: Assistant) async throws(StoreError) -> Assistant {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(
                    sql: """
                        UPDATE assistants SET author_id = ?, name = ?, description = ?, icon = ?, instructions = ?,
                            model = ?, generation_settings = ?, starters = ?, visibility = ?, version = version + 1,
                            updated_at = ?
                        WHERE id = ?
                        """
                ).execute(arguments: Self.fields(of: assistant) + [StoredDate.now, assistant.id])
                guard db.changesCount == 1 else { throw StoreError.notFound }
                try Self.sharing.setGroups(
                    assistant.groupIDs, visibility: assistant.visibility, of: assistant.id, db)
                guard let updated = try Self.fetch(assistant.id, db) else { throw StoreError.notFound }
                return updated
            }
        }
    }

    public func deleteAssistant(id: AssistantID) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "DELETE FROM assistants WHERE id = ?").execute(arguments: [id])
                guard db.changesCount == 1 else { throw StoreError.notFound }
            }
        }
    }

    public func assistant(id: AssistantID) async throws(StoreError) -> Assistant? {
        try await perform { try pool.lookup { db in try Self.fetch(id, db) } }
    }

    public func assistants(visibleTo userID: UserID, isAdmin: Bool) async throws(StoreError) -> [Assistant] {
        try await perform {
            try pool.lookup { db in
                try Row.fetchAll(
                    db.cachedStatement(
                        sql: Self.columns
                            + " WHERE \(Self.sharing.visibleCondition) ORDER BY a.name COLLATE NOCASE, a.id"
                    ), arguments: [isAdmin, userID, userID]
                ).map(Assistant.init(row:))
            }
        }
    }

    public func setIcon(_ icon: AssistantIcon?, assistantID: AssistantID) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "UPDATE assistants SET icon_image = ?, icon_type = ? WHERE id = ?")
                    .execute(arguments: [icon.map { Data($0.bytes) }, icon?.contentType, assistantID])
                guard db.changesCount == 1 else { throw StoreError.notFound }
            }
        }
    }

    public func icon(assistantID: AssistantID) async throws(StoreError) -> AssistantIcon? {
        try await perform {
            try pool.lookup { db in
                try Row.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT icon_image, icon_type FROM assistants WHERE id = ? AND icon_image IS NOT NULL"),
                    arguments: [assistantID]
                ).map { AssistantIcon(contentType: $0["icon_type"], bytes: [UInt8]($0["icon_image"] as Data)) }
            }
        }
    }

    public func assistantCount(authorID: UserID) async throws(StoreError) -> Int {
        try await perform {
            try pool.lookup { db in
                try Int.fetchOne(
                    db.cachedStatement(sql: "SELECT COUNT(*) FROM assistants WHERE author_id = ?"),
                    arguments: [authorID]) ?? 0
            }
        }
    }

    public func groupIDs(of userID: UserID) async throws(StoreError) -> Set<GroupID> {
        try await perform {
            try pool.lookup { db in
                Set(
                    try GroupID.fetchAll(
                        db.cachedStatement(sql: "SELECT group_id FROM group_members WHERE user_id = ?"),
                        arguments: [userID]))
            }
        }
    }

    private static func fetch(_ id: AssistantID, _ db: Database) throws -> Assistant? {
        try Row.fetchOne(db.cachedStatement(sql: columns + " WHERE a.id = ?"), arguments: [id])
            .map(Assistant.init(row:))
    }

    /// The stored fields, in the order of the insert and the update.
    private static func fields(of assistant: Assistant) -> StatementArguments {
        let starters = (try? JSONEncoder().encode(assistant.starters)).map { String(decoding: $0, as: UTF8.self) }
        return [
            assistant.authorID, assistant.name, assistant.description, assistant.icon, assistant.instructions,
            assistant.model, assistant.options.storedJSON, starters ?? "[]", assistant.visibility.rawValue,
        ]
    }
}

extension Assistant {
    init(row: Row) {
        let starters = (row["starters"] as String?).flatMap {
            try? JSONDecoder().decode([String].self, from: Data($0.utf8))
        }
        self.init(
            id: row["id"], authorID: row["author_id"], name: row["name"], description: row["description"],
            icon: row["icon"], instructions: row["instructions"], model: row["model"],
            options: GenerationOptions(json: row["generation_settings"]), starters: starters ?? [],
            visibility: Visibility(rawValue: row["visibility"]) ?? .private, groupIDs: SharedVisibility.groupIDs(row),
            version: row["version"], hasIconImage: row["has_icon"], createdAt: row.date("created_at"),
            updatedAt: row.date("updated_at"))
    }
}
