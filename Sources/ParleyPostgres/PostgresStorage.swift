import Logging
import ParleyCore
import PostgresNIO
import ServiceLifecycle

/// A PostgreSQL database that Parley keeps everything in: a pool of connections, run as a service of the
/// application, and its schema.
public final class PostgresStorage: Service {
    public let location: PostgresLocation
    let client: PostgresClient
    let logger: Logger

    /// A pool of connections to `location`; nothing connects until `run()` runs.
    public init(location: PostgresLocation, logger: Logger) {
        self.location = location
        self.logger = logger
        client = PostgresClient(configuration: location.configuration, backgroundLogger: logger)
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
}

/// Runs a database access, turning whatever it throws into the store's typed error.
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
