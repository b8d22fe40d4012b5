import Logging
import PostgresNIO

/// A step of the schema: statements that run in one transaction.
struct PostgresMigration: Sendable {
    let name: String
    let statements: [String]
}

/// Brings a database's schema up to date, once however many instances start at once: the steps run under a
/// session-level advisory lock, each in its own transaction, and `parley_migrations` records those done.
enum PostgresMigrator {
    /// The advisory lock's key ("parley" in ASCII).
    static let lockKey: Int64 = 0x70_6172_6C65_79

    /// Runs the steps of `migrations` the database has not had; returns the names of those it ran. Throws
    /// `PostgresSchemaError.newer` when the database has steps this build does not know.
    static func migrate(_ client: PostgresClient, _ migrations: [PostgresMigration], logger: Logger) async throws
        -> [String]
    {
        try await client.withConnection { connection in
            try await connection.query("SELECT pg_advisory_lock(\(lockKey))", logger: logger)
            do {
                let applied = try await applyPending(migrations, on: connection, logger: logger)
                try await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
                return applied
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
                throw error
            }
        }
    }

    /// The steps after the database's latest, each run with its record in one transaction.
    private static func applyPending(
        _ migrations: [PostgresMigration], on connection: PostgresConnection, logger: Logger
    ) async throws -> [String] {
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS parley_migrations (
                version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
            """, logger: logger)
        var latest = 0
        for try await version in try await connection.query(
            "SELECT COALESCE(MAX(version), 0)::integer FROM parley_migrations", logger: logger
        ).decode(Int.self) {
            latest = version
        }
        guard latest <= migrations.count else {
            throw PostgresSchemaError.newer(version: latest, known: migrations.count)
        }
        var applied: [String] = []
        for (index, migration) in migrations.enumerated() where index + 1 > latest {
            try await connection.withTransaction(logger: logger) { transaction in
                for statement in migration.statements {
                    try await transaction.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await transaction.query(
                    "INSERT INTO parley_migrations (version, name) VALUES (\(index + 1), \(migration.name))",
                    logger: logger)
            }
            applied.append(migration.name)
        }
        return applied
    }
}

/// A schema this build cannot use.
public enum PostgresSchemaError: Error, Equatable, CustomStringConvertible {
    /// The database was migrated by a newer Parley.
    case newer(version: Int, known: Int)

    public var description: String {
        switch self {
        case .newer(let version, let known):
            "the database's schema is at version \(version), newer than this Parley's \(known): run a newer Parley"
        }
    }
}
