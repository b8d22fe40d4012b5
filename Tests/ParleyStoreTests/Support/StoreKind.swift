import Foundation
import GRDB
import ParleyCore
import ParleyPostgres
import ParleyStore
import Testing

/// The databases the store tests run against: SQLite in a temporary folder, and PostgreSQL (`TestPostgres`).
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// The stores both databases have, over one fresh database.
    struct Stores {
        let accounts: any AccountStore
        let invites: any InviteStore
        let admin: any UserAdminStore
        let singleSignOn: any SingleSignOnStore
        let apiKeys: any APIKeyStore
        let toolChoices: any ToolChoiceStore
        let groups: any GroupStore
        let prompts: any PromptStore
        let assistants: any AssistantStore
        /// Runs a statement of SQL both databases read alike, for what no store writes (usage rows, say).
        let execute: (String) async throws -> Void
    }

    /// Runs `body` with the stores over a fresh database of this kind.
    func withStores(_ body: (Stores) async throws -> Void) async throws {
        switch self {
        case .sqlite:
            try await StoreFixture.run { store in
                try await body(
                    Stores(
                        accounts: store.accounts, invites: store.accounts, admin: store.accounts,
                        singleSignOn: store.accounts,
                        apiKeys: SQLiteAPIKeyStore(database: store.database),
                        toolChoices: SQLiteToolChoiceStore(database: store.database),
                        groups: SQLiteGroupStore(database: store.database),
                        prompts: SQLitePromptStore(database: store.database),
                        assistants: SQLiteAssistantStore(database: store.database),
                        execute: { sql in try await store.database.pool.write { try $0.execute(sql: sql) } }))
            }
        case .postgres:
            try await TestPostgres.shared.withDatabase { database in
                try await body(
                    Stores(
                        accounts: PostgresAccountStore(database: database),
                        invites: PostgresAccountStore(database: database),
                        admin: PostgresAccountStore(database: database),
                        singleSignOn: PostgresAccountStore(database: database),
                        apiKeys: PostgresAPIKeyStore(database: database),
                        toolChoices: PostgresToolChoiceStore(database: database),
                        groups: PostgresGroupStore(database: database),
                        prompts: PostgresPromptStore(database: database),
                        assistants: PostgresAssistantStore(database: database),
                        execute: { sql in try await database.execute(sql) }))
            }
        }
    }

    /// Runs `body` with the account store over a fresh database of this kind.
    func withAccounts(_ body: (any AccountStore) async throws -> Void) async throws {
        try await withStores { try await body($0.accounts) }
    }
}
