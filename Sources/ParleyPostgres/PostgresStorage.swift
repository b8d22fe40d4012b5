import Foundation
import Logging
import ParleyCore
import PostgresNIO
import ServiceLifecycle

/// A PostgreSQL database that Parley keeps everything in: a pool of connections, run as a service of the
/// application, and its schema.
public final class PostgresStorage: Service {
    public let location: PostgresLocation
    /// This process's name among the instances sharing the database: the owner of the replies it runs.
    public let instanceID = UUID()
    let client: PostgresClient
    let logger: Logger

    /// A pool of connections to `location`; nothing connects until `run()` runs.
    public init(location: PostgresLocation, logger: Logger) {
        self.location = location
        self.logger = logger
        client = PostgresClient(configuration: location.configuration, backgroundLogger: logger)
    }

    /// Runs `body` in one transaction on one of the pool's connections: committed when it returns, rolled back when it
    /// throws (what it threw is thrown on).
    public func withTransaction<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws
        -> Result
    {
        do {
            return try await client.withTransaction(logger: logger) { try await body($0) }
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error
        }
    }

    /// Keeps the pool running until the task is cancelled.
    public func run() async {
        await client.run()
    }

    /// Brings the schema up to date (once, however many instances start at once); returns the names of the steps
    /// this call ran.
    @discardableResult
    public func migrate() async throws -> [String] {
        try await PostgresMigrator.migrate(client, PostgresSchema.migrations, logger: logger)
    }

    /// Runs `body` with a pool of connections to `location` running, the schema brought up to date first; the pool
    /// stops when `body` returns or throws.
    public static func withRunning<Result: Sendable>(
        _ location: PostgresLocation, logger: Logger, _ body: (PostgresStorage) async throws -> Result
    ) async throws -> Result {
        let storage = PostgresStorage(location: location, logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await storage.run() }
            defer { group.cancelAll() }
            // The pool's run begins before the first query leases a connection (else postgres-nio warns of it).
            await Task.yield()
            let applied = try await storage.migrate()
            if !applied.isEmpty {
                logger.notice("migrated the database", metadata: ["steps": "\(applied.joined(separator: ", "))"])
            }
            return try await body(storage)
        }
    }
}

extension PostgresStorage: DatabaseHandle {
    public func ping() async -> Bool {
        (try? await client.query("SELECT 1", logger: logger).collect().count) == 1
    }

    /// None: PostgreSQL takes writes as they come.
    public var waitingWrites: Int { 0 }

    /// Nothing to do: the pool stops with the task that runs it (`withRunning`).
    public func release() async -> String? { nil }
}

/// Runs a database access, turning whatever it throws into the store's typed error.
@discardableResult
func perform<T>(_ access: () async throws -> T) async throws(StoreError) -> T {
    do {
        return try await access()
    } catch {
        throw storeError(error)
    }
}

/// The store's error for what a database access threw: a transaction's failure is its closure's (or its commit's).
private func storeError(_ error: any Error) -> StoreError {
    switch error {
    case let error as StoreError: return error
    case let error as PostgresTransactionError:
        if let cause = error.closureError ?? error.commitError ?? error.beginError { return storeError(cause) }
        return .database(String(reflecting: error))
    case let error as PSQLError:
        switch error.serverInfo?[.sqlState] {
        case "23505": return .duplicate
        case "53100": return .diskFull
        default: return .database(String(reflecting: error))
        }
    default: return .database("\(error)")
    }
}
