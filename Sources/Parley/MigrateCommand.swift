import ArgumentParser
import Foundation
import Logging
import ParleyCopy
import ParleyPostgres
import ParleyServer
import ParleyStore

/// `parley migrate --from-sqlite PATH`: copies a stopped server's SQLite database into the empty PostgreSQL database
/// that `PARLEY_DATABASE_URL` names.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Copy an SQLite database into an empty PostgreSQL one.",
        discussion: """
            Stop the server first. Every table is copied with its ids in one transaction, the counts are checked, and \
            a PostgreSQL database that holds anything is refused. Then start Parley with PARLEY_DATABASE_URL set.
            """)

    @Option(name: .customLong("from-sqlite"), help: "The folder holding parley.sqlite, or the file itself.")
    var source: String

    func run() async throws {
        let settings = try ServerSettings(environment: ProcessInfo.processInfo.environment)
        guard let url = settings.databaseURL else {
            throw ValidationError("Set PARLEY_DATABASE_URL to the PostgreSQL database to copy into.")
        }
        let folder = source.hasSuffix(".sqlite") ? (source as NSString).deletingLastPathComponent : source
        guard FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent("parley.sqlite"))
        else {
            throw ValidationError("There is no parley.sqlite in \(folder).")
        }
        let database = try ParleyDatabase(directory: folder)
        var logger = Logger(label: "parley")
        logger.logLevel = settings.logLevel
        let counts = try await PostgresStorage.withRunning(try PostgresLocation(url: url), logger: logger) {
            try await SQLiteToPostgres.copy(database, into: $0, logger: logger)
        }
        try database.close()
        for (table, rows) in counts where rows > 0 { print("\(table): \(rows)") }
        let file = (folder as NSString).appendingPathComponent("parley.sqlite")
        print("Copied \(file) into PostgreSQL (\(counts.reduce(0) { $0 + $1.rows }) rows).")
    }
}
