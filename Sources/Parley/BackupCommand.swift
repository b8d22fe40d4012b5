import ArgumentParser
import Foundation
import ParleyServer
import ParleyStore

/// `parley backup --to FILE`: a consistent copy of the database, taken with SQLite's online backup API while the
/// server keeps running.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup", abstract: "Copy the database to a new file, safely while the server runs.",
        discussion:
            "To restore: stop the server, replace parley.sqlite in the data folder with the copy (and delete any parley.sqlite-wal and parley.sqlite-shm beside it), then start the server."
    )

    @Option(help: "The file to write; it must not exist yet.") var to: String
    @Option(help: "The folder holding parley.sqlite (PARLEY_DATA_DIR).") var dataDir: String?

    func run() async throws {
        let settings = try ServerSettings(environment: ProcessInfo.processInfo.environment)
        if settings.databaseURL != nil {
            throw ValidationError("PARLEY_DATABASE_URL is set: back the PostgreSQL database up with pg_dump.")
        }
        let directory = dataDir ?? settings.dataDirectory
        guard FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent("parley.sqlite"))
        else {
            throw ValidationError("There is no parley.sqlite in \(directory).")
        }
        let database = try ParleyDatabase(directory: directory)
        try await database.backup(to: to)
        try database.close()
        print("Backed up \(directory)/parley.sqlite to \(to).")
    }
}
