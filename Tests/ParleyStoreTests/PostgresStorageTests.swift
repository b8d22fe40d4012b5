import Foundation
import GRDB
import Logging
import ParleyCore
import ParleyStore
import PostgresNIO
import TestDatabases
import Testing

@testable import ParleyPostgres

/// `PARLEY_DATABASE_URL` as libpq reads it.
@Suite struct PostgresLocationTests {
    @Test("a URL gives the user, password, host, port, database and TLS mode; the password is never shown")
    func readsAURL() throws {
        let location = try PostgresLocation(
            url: "postgresql://parley:s%40cret%2F1@db.example.com:6432/chat?sslmode=require")
        #expect(location.user == "parley" && location.password == "s@cret/1")
        #expect(location.host == "db.example.com" && location.port == 6432 && location.database == "chat")
        #expect(location.sslMode == .require && location.socketFolder == nil)
        #expect(location.description == "PostgreSQL parley@db.example.com:6432/chat")
        #expect(!"\(location)".contains("cret"))
    }

    @Test("defaults: port 5432, the user's database, TLS preferred; a socket folder as ?host= or as the host")
    func defaultsAndSockets() throws {
        let plain = try PostgresLocation(url: "postgres://ada@localhost")
        #expect(plain.port == 5432 && plain.database == "ada" && plain.sslMode == .prefer)
        let socket = try PostgresLocation(url: "postgres://ada@/chat?host=/run/postgresql")
        #expect(socket.socketFolder == "/run/postgresql" && socket.host == nil && socket.sslMode == .disable)
        #expect(socket.description == "PostgreSQL ada@/run/postgresql/.s.PGSQL.5432/chat")
        let encoded = try PostgresLocation(url: "postgres://ada@%2Frun%2Fpostgresql/chat")
        #expect(encoded.socketFolder == "/run/postgresql")
        #expect(try PostgresLocation(url: "postgres://ada@db/chat?sslmode=allow").sslMode == .prefer)
        #expect(try PostgresLocation(url: "postgres://ada@db/chat?sslmode=verify-full").sslMode == .verifyFull)
    }

    @Test(
        "what is not a PostgreSQL URL is refused with the reason",
        arguments: [
            ("mysql://a@b/c", PostgresLocationError.notPostgres),
            ("not a url at all", .notPostgres),
            ("postgres://db.example.com/chat", .noUser),
            ("postgres://ada@/chat", .noHost),
            ("postgres://ada@db:0/chat", .badPort),
            ("postgres://ada@db/chat?sslmode=sometimes", .unknownSSLMode("sometimes")),
        ])
    func refusesWhatItCannotRead(url: String, error: PostgresLocationError) {
        #expect(throws: error) { try PostgresLocation(url: url) }
    }
}

/// The schema in a real PostgreSQL: migrated once however many instances start at once, refused when newer, and
/// holding what the SQLite schema holds.
@Suite struct PostgresSchemaTests {
    @Test("instances migrating one database at once run each step once")
    func concurrentMigrationsRunOnce() async throws {
        try await TestPostgres.shared.withDatabase(migrated: false) { database in
            let instances = (0..<4).map { _ in
                PostgresStorage(location: database.location, logger: Logger(label: "parley-test-instance"))
            }
            let applied = try await withThrowingTaskGroup(of: [String].self) { group in
                for instance in instances {
                    group.addTask {
                        await instance.run(); return []
                    }
                }
                let migrations = try await withThrowingTaskGroup(of: [String].self) { inner in
                    for instance in instances { inner.addTask { try await instance.migrate() } }
                    return try await inner.reduce(into: []) { $0 += $1 }
                }
                group.cancelAll()
                return migrations
            }
            #expect(applied == PostgresSchema.migrations.map(\.name))
            let versions = try await database.client.query("SELECT version FROM parley_migrations ORDER BY version")
                .rows()
            #expect(
                try versions.map { try $0["version"].decode(Int.self) }
                    == Array(PostgresSchema.migrations.indices.map { $0 + 1 }))
            #expect(try await database.migrate().isEmpty)
        }
    }

    @Test("a database migrated by a newer Parley is refused, and left as it is")
    func newerSchemaIsRefused() async throws {
        try await TestPostgres.shared.withDatabase { database in
            try await database.client.query("INSERT INTO parley_migrations (version, name) VALUES (99, 'future')")
            await #expect(throws: PostgresSchemaError.newer(version: 99, known: PostgresSchema.migrations.count)) {
                try await database.migrate()
            }
            let count = try await database.client.query("SELECT COUNT(*)::integer FROM parley_migrations").rows()
            #expect(try count.first?[0].decode(Int.self) == PostgresSchema.migrations.count + 1)
        }
    }

    @Test("every SQLite table and column is in PostgreSQL, and nothing else but search and the instances' tables")
    func schemaMatchesSQLite() async throws {
        let sqlite = try await StoreFixture.columns()
        try await TestPostgres.shared.withDatabase { database in
            var postgres: [String: Set<String>] = [:]
            for row in try await database.client.query(
                """
                SELECT c.table_name::text, c.column_name::text FROM information_schema.columns c
                JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
                WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.table_name <> 'parley_migrations'
                """
            ).rows() where try !PostgresSchema.ownTableNames.contains(row[0].decode(String.self)) {
                postgres[try row[0].decode(String.self), default: []].insert(try row[1].decode(String.self))
            }
            #expect(Set(postgres.keys) == Set(sqlite.keys))
            for (table, columns) in sqlite {
                #expect(postgres[table]?.subtracting(["search"]) == columns, "\(table)")
            }
        }
    }
}

extension StoreFixture {
    /// The tables of a fresh SQLite database and their columns, without SQLite's and GRDB's own and the search
    /// index's.
    static func columns() async throws -> [String: Set<String>] {
        var tables: [String: Set<String>] = [:]
        try await run { store in
            tables = try await store.database.pool.read { db in
                let names = try String.fetchAll(
                    db,
                    sql: """
                        SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                        AND name NOT LIKE 'grdb_%' AND name NOT LIKE '%_fts%'
                        """)
                var tables: [String: Set<String>] = [:]
                for name in names { tables[name] = Set(try db.columns(in: name).map(\.name)) }
                return tables
            }
        }
        return tables
    }
}
