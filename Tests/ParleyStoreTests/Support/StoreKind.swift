import Foundation
import GRDB
import ParleyCore
import ParleyPostgres
import ParleyStore
import TestDatabases
import Testing

/// The databases the store tests run against: SQLite in a temporary folder, and PostgreSQL (`TestPostgres`).
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The stores both databases have, over one fresh database.
    struct Stores: Sendable {
        let kind: StoreKind
        let accounts: any AccountStore
        let invites: any InviteStore
        let admin: any UserAdminStore
        let singleSignOn: any SingleSignOnStore
        let apiKeys: any APIKeyStore
        let toolChoices: any ToolChoiceStore
        let groups: any GroupStore
        let prompts: any PromptStore
        let assistants: any AssistantStore
        let knowledge: any KnowledgeStore
        let documents: any DocumentStore
        let apiCompletions: any APICompletionStore
        let chats: any ChatStore
        let shares: any ShareStore
        let usage: any UsageStore
        /// Runs a statement of SQL both databases read alike, for what no store writes (usage rows, say).
        let execute: @Sendable (String) async throws -> Void
        /// Throws when the search index disagrees with the messages: FTS5's own integrity check on SQLite; on
        /// PostgreSQL, whose `tsvector` columns are computed from their rows, when a streaming or held message is
        /// searchable.
        let checkSearch: @Sendable () async throws -> Void
        /// The integer a query of SQL both databases read alike gives, with `?` for each of `arguments`.
        let integer: @Sendable (String, [Int64]) async throws -> Int
        /// Leaves the database as a crash leaves it: no instance holds the running replies' leases any more
        /// (PostgreSQL; SQLite has none).
        let crash: @Sendable () async throws -> Void

        /// Creates a user with a throwaway hash.
        func user(_ email: String) async throws -> User {
            try await accounts.createUser(email: email, passwordHash: "hash", isAdmin: false)
        }

        /// Creates a conversation owned by `userID`.
        func conversation(_ userID: UserID, title: String = "Chat") async throws -> Conversation {
            try await chats.createConversation(userID: userID, title: title, model: "m", systemPrompt: "be brief")
        }

        /// Counts rows (or reads one integer) with raw SQL; -1 when the query gives no row.
        func count(_ sql: String, _ arguments: [Int64] = []) async throws -> Int {
            try await integer(sql, arguments)
        }
    }

    /// The stores over a fixture's SQLite database.
    static func sqliteStores(_ store: StoreFixture) -> Stores {
        return Stores(
            kind: .sqlite, accounts: store.accounts, invites: store.accounts, admin: store.accounts,
            singleSignOn: store.accounts,
            apiKeys: SQLiteAPIKeyStore(database: store.database),
            toolChoices: SQLiteToolChoiceStore(database: store.database),
            groups: SQLiteGroupStore(database: store.database),
            prompts: SQLitePromptStore(database: store.database),
            assistants: SQLiteAssistantStore(database: store.database),
            knowledge: SQLiteKnowledgeStore(database: store.database),
            documents: SQLiteDocumentStore(database: store.database),
            apiCompletions: store.chats, chats: store.chats,
            shares: SQLiteShareStore(database: store.database),
            usage: SQLiteUsageStore(database: store.database),
            execute: { sql in try await store.database.pool.write { try $0.execute(sql: sql) } },
            checkSearch: { try await store.database.checkSearchIndexes() },
            integer: { sql, arguments in try await store.count(sql, StatementArguments(arguments)) },
            crash: {})
    }

    /// Runs `body` with the stores over a fresh database of this kind.
    func withStores(_ body: (Stores) async throws -> Void) async throws {
        switch self {
        case .sqlite:
            try await StoreFixture.run { store in try await body(Self.sqliteStores(store)) }
        case .postgres:
            try await TestPostgres.shared.withDatabase { database in
                try await body(
                    Stores(
                        kind: .postgres, accounts: PostgresAccountStore(database: database),
                        invites: PostgresAccountStore(database: database),
                        admin: PostgresAccountStore(database: database),
                        singleSignOn: PostgresAccountStore(database: database),
                        apiKeys: PostgresAPIKeyStore(database: database),
                        toolChoices: PostgresToolChoiceStore(database: database),
                        groups: PostgresGroupStore(database: database),
                        prompts: PostgresPromptStore(database: database),
                        assistants: PostgresAssistantStore(database: database),
                        knowledge: PostgresKnowledgeStore(database: database),
                        documents: PostgresDocumentStore(database: database),
                        apiCompletions: PostgresAPICompletionStore(database: database),
                        chats: PostgresChatStore(database: database),
                        shares: PostgresShareStore(database: database),
                        usage: PostgresUsageStore(database: database),
                        execute: { sql in try await database.execute(sql) },
                        checkSearch: {
                            let wrong = try await database.integer(
                                """
                                SELECT COUNT(*) FROM messages
                                WHERE search IS NOT NULL AND (status = 'streaming' OR search_held)
                                """, [])
                            guard wrong == 0 else {
                                throw TestPostgresFailure(description: "\(wrong) messages searchable")
                            }
                        },
                        integer: { sql, arguments in try await database.integer(sql, arguments) },
                        crash: {
                            try await database.execute(
                                "UPDATE reply_leases SET expires_at = now() - interval '1 hour'")
                        }))
            }
        }
    }

    /// The id of a new conversation of `userID`'s (started with `assistantID`), written as SQL both databases read.
    static func conversation(_ id: Int64, of userID: UserID, assistantID: AssistantID? = nil, _ stores: Stores)
        async throws
    {
        try await stores.execute(
            """
            INSERT INTO conversations (id, user_id, title, model, assistant_id, created_at, updated_at)
            VALUES (\(id), \(userID), 'Chat', 'm', \(assistantID.map(String.init) ?? "NULL"),
                '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000')
            """)
    }

    /// Runs `body` with the account store over a fresh database of this kind.
    func withAccounts(_ body: (any AccountStore) async throws -> Void) async throws {
        try await withStores { try await body($0.accounts) }
    }
}
