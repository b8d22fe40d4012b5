import Foundation
import GRDB
import Logging
import ParleyCore
import ParleyPostgres
import ParleyStore
import PostgresNIO

/// Copies an SQLite database of Parley's into an empty PostgreSQL one (`parley migrate --from-sqlite`), in one
/// transaction: every table in the order the PostgreSQL schema creates them (so that each row's references exist),
/// every row with its id, each value cast to its PostgreSQL column's type, then each identity's sequence set past the
/// copied ids and each table's count checked. Stored bytes are counted again by the target's triggers.
public enum SQLiteToPostgres {
    /// What the copy found wrong; nothing was written.
    public enum Failure: Error, CustomStringConvertible {
        case targetNotEmpty(table: String)
        case countsDiffer(table: String, source: Int, target: Int)

        public var description: String {
            switch self {
            case .targetNotEmpty(let table):
                "the PostgreSQL database is not empty (\(table) has rows): copy only into a new database"
            case .countsDiffer(let table, let source, let target):
                "\(table): \(source) rows in SQLite but \(target) copied"
            }
        }
    }

    /// Copies `source` into `target` (migrated, empty); returns each table's row count.
    public static func copy(_ source: ParleyDatabase, into target: PostgresStorage, logger: Logger) async throws
        -> [(table: String, rows: Int)]
    {
        try await target.withTransaction { connection in
            try await connection.query("SET LOCAL TIME ZONE 'UTC'", logger: logger)
            for table in PostgresSchema.tableNames {
                let rows =
                    try await connection.query(
                        "SELECT EXISTS (SELECT 1 FROM \(unescaped: table))", logger: logger
                    ).collect().first?.decode(Bool.self) ?? false
                if rows { throw Failure.targetNotEmpty(table: table) }
            }
            var counts: [(table: String, rows: Int)] = []
            for table in PostgresSchema.tableNames {
                let copied = try await copyTable(table, from: source, on: connection, logger: logger)
                let target =
                    try await connection.query(
                        "SELECT COUNT(*) FROM \(unescaped: table)", logger: logger
                    ).collect().first?.decode(Int64.self) ?? -1
                guard Int(target) == copied else {
                    throw Failure.countsDiffer(table: table, source: copied, target: Int(target))
                }
                counts.append((table, copied))
            }
            return counts
        }
    }

    /// Copies one table's rows, columns SQLite has and PostgreSQL types (stored bytes set to 0, for the triggers to
    /// count); sets its identity past the copied ids; returns how many rows it copied.
    private static func copyTable(
        _ table: String, from source: ParleyDatabase, on connection: PostgresConnection, logger: Logger
    ) async throws -> Int {
        var types: [String: String] = [:]
        var identity: String?
        for row in try await connection.query(
            """
            SELECT column_name::text, data_type::text, is_identity::text, is_generated::text
            FROM information_schema.columns WHERE table_schema = 'public' AND table_name = \(table)
            """, logger: logger
        ).collect() {
            let (name, type, isIdentity, isGenerated) = try row.decode((String, String, String, String).self)
            if isGenerated == "NEVER" { types[name] = type }
            if isIdentity == "YES" { identity = name }
        }
        // Rows are not Sendable, so this is GRDB's blocking read: the copy is a command of its own, with nothing
        // else to run meanwhile.
        let rows = try source.pool.read { db in try Row.fetchAll(db, sql: "SELECT * FROM \(table)") }
        guard let first = rows.first else { return 0 }
        let columns = first.columnNames.filter { types[$0] != nil }
        let placeholders = columns.enumerated().map { "$\($0.offset + 1)::\(types[$0.element] ?? "text")" }
        let insert =
            "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", ")))"
        for row in rows {
            var bindings = PostgresBindings()
            for column in columns {
                let value: DatabaseValue = column == "stored_bytes" && table == "users" ? 0.databaseValue : row[column]
                switch value.storage {
                case .null: bindings.appendNull()
                case .int64(let number): bindings.append(String(number))
                case .double(let number): bindings.append(String(number))
                case .string(let text): bindings.append(text)
                case .blob(let data): try bindings.append(data)
                }
            }
            try await connection.query(PostgresQuery(unsafeSQL: insert, binds: bindings), logger: logger)
        }
        if let identity {
            try await connection.query(
                """
                SELECT setval(pg_get_serial_sequence(\(table), \(identity)),
                    COALESCE(MAX(\(unescaped: identity)), 1), MAX(\(unescaped: identity)) IS NOT NULL)
                FROM \(unescaped: table)
                """, logger: logger)
        }
        return rows.count
    }
}
