import Foundation
import Logging
import ParleyCore
import PostgresNIO

/// Assistants and the groups each is shared with, in PostgreSQL.
public struct PostgresAssistantStore: AssistantStore {
    let client: PostgresClient
    let logger: Logger

    /// Creates the store over a database.
    public init(database: PostgresStorage) {
        client = database.client
        logger = database.logger
    }

    /// Who may see an assistant, and its groups.
    private static let sharing = PostgresSharing(
        alias: "a", owner: "author_id", groupsTable: "assistant_groups", key: "assistant_id")

    /// An assistant's columns (its icon's bytes aside) with its groups.
    private static let columns = """
        SELECT a.id, a.author_id, a.name, a.description, a.icon, a.instructions, a.model, a.generation_settings,
               a.starters, a.visibility, a.version, a.created_at, a.updated_at, a.icon_image IS NOT NULL AS has_icon,
               \(sharing.groupsColumn)
        FROM assistants a
        """

    public func createAssistant(_ assistant: Assistant) async throws(StoreError) -> Assistant {
        let now = StoredMoment.now
        return try await perform {
            try await client.withTransaction(logger: logger) { connection in
                let id =
                    try await connection.query(
                        """
                        INSERT INTO assistants (author_id, name, description, icon, instructions, model,
                            generation_settings, starters, visibility, version, created_at, updated_at)
                        VALUES (\(assistant.authorID), \(assistant.name), \(assistant.description), \(assistant.icon),
                            \(assistant.instructions), \(assistant.model), \(assistant.options.storedJSON),
                            \(Self.starters(assistant)), \(assistant.visibility.rawValue), 1, \(now), \(now))
                        RETURNING id
                        """, logger: logger
                    ).rows().first?["id"].decode(Int64.self) ?? 0
                try await Self.sharing.setGroups(
                    assistant.groupIDs, shared: assistant.visibility == .groups, of: id, on: connection, logger: logger)
                return try await fetch(id, on: connection) ?? assistant
            }
        }
    }

    public func updateAssistant(_ assistant: Assistant) async throws(StoreError) -> Assistant {
        let now = StoredMoment.now
        return try await perform {
            try await client.withTransaction(logger: logger) { connection in
                let updated = try await connection.query(
                    """
                    UPDATE assistants SET author_id = \(assistant.authorID), name = \(assistant.name),
                        description = \(assistant.description), icon = \(assistant.icon),
                        instructions = \(assistant.instructions), model = \(assistant.model),
                        generation_settings = \(assistant.options.storedJSON), starters = \(Self.starters(assistant)),
                        visibility = \(assistant.visibility.rawValue), version = version + 1, updated_at = \(now)
                    WHERE id = \(assistant.id) RETURNING 1
                    """, logger: logger
                ).rows()
                guard updated.count == 1 else { throw StoreError.notFound }
                try await Self.sharing.setGroups(
                    assistant.groupIDs, shared: assistant.visibility == .groups, of: assistant.id, on: connection,
                    logger: logger)
                guard let stored = try await fetch(assistant.id, on: connection) else { throw StoreError.notFound }
                return stored
            }
        }
    }

    public func deleteAssistant(id: AssistantID) async throws(StoreError) {
        try await perform {
            let deleted = try await client.query(
                "DELETE FROM assistants WHERE id = \(id) RETURNING 1", logger: logger
            ).rows()
            guard deleted.count == 1 else { throw StoreError.notFound }
        }
    }

    public func assistant(id: AssistantID) async throws(StoreError) -> Assistant? {
        try await perform {
            try await client.query("\(unescaped: Self.columns) WHERE a.id = \(id)", logger: logger).rows().first
                .map(Assistant.init(row:))
        }
    }

    public func assistants(visibleTo userID: UserID, isAdmin: Bool) async throws(StoreError) -> [Assistant] {
        try await perform {
            let binds = PostgresBinds()
            let sql = """
                \(Self.columns) WHERE \(try Self.sharing.visible(to: userID, isAdmin: isAdmin, binds))
                ORDER BY lower(a.name), a.id
                """
            return try await client.query(binds.query(sql), logger: logger).rows().map(Assistant.init(row:))
        }
    }

    public func setIcon(_ icon: AssistantIcon?, assistantID: AssistantID) async throws(StoreError) {
        try await perform {
            let changed = try await client.query(
                """
                UPDATE assistants SET icon_image = \(icon.map { Data($0.bytes) }), icon_type = \(icon?.contentType)
                WHERE id = \(assistantID) RETURNING 1
                """, logger: logger
            ).rows()
            guard changed.count == 1 else { throw StoreError.notFound }
        }
    }

    public func icon(assistantID: AssistantID) async throws(StoreError) -> AssistantIcon? {
        try await perform {
            try await client.query(
                """
                SELECT icon_image, icon_type FROM assistants WHERE id = \(assistantID) AND icon_image IS NOT NULL
                """, logger: logger
            ).collect().first.map { row in
                let (bytes, type) = try row.decode((Data, String).self)
                return AssistantIcon(contentType: type, bytes: [UInt8](bytes))
            }
        }
    }

    public func assistantCount(authorID: UserID) async throws(StoreError) -> Int {
        try await perform {
            Int(
                try await client.query("SELECT COUNT(*) FROM assistants WHERE author_id = \(authorID)", logger: logger)
                    .collect().first?.decode(Int64.self) ?? 0)
        }
    }

    public func groupIDs(of userID: UserID) async throws(StoreError) -> Set<GroupID> {
        try await perform {
            Set(
                try await client.query("SELECT group_id FROM group_members WHERE user_id = \(userID)", logger: logger)
                    .collect().map { try $0.decode(Int64.self) })
        }
    }

    /// The assistant with this id, read on `connection`, or nil.
    private func fetch(_ id: AssistantID, on connection: PostgresConnection) async throws -> Assistant? {
        try await connection.query("\(unescaped: Self.columns) WHERE a.id = \(id)", logger: logger).rows().first
            .map(Assistant.init(row:))
    }

    /// The starters as stored: a JSON array.
    private static func starters(_ assistant: Assistant) -> String {
        (try? JSONEncoder().encode(assistant.starters)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }
}

extension Assistant {
    /// An assistant from a row of `PostgresAssistantStore`'s columns.
    init(row: PostgresRandomAccessRow) throws {
        let starters = try? JSONDecoder().decode(
            [String].self, from: Data(try row["starters"].decode(String.self).utf8))
        self.init(
            id: try row["id"].decode(Int64.self), authorID: try row["author_id"].decode(Int64.self),
            name: try row["name"].decode(String.self), description: try row["description"].decode(String.self),
            icon: try row["icon"].decode(String.self), instructions: try row["instructions"].decode(String.self),
            model: try row["model"].decode(String.self),
            options: GenerationOptions(json: try row["generation_settings"].decode(String?.self)),
            starters: starters ?? [],
            visibility: Visibility(rawValue: try row["visibility"].decode(String.self)) ?? .private,
            groupIDs: try row["groups"].decode([Int64].self), version: Int(try row["version"].decode(Int64.self)),
            hasIconImage: try row["has_icon"].decode(Bool.self), createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at"))
    }
}
