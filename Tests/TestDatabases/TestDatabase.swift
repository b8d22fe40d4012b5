import Foundation
import ParleyCore
import ParleyPostgres
import ParleyStore

/// The databases Parley keeps everything in, for tests that run over each: a new SQLite file in a temporary folder, or
/// a new database of the test process's PostgreSQL server (`TestPostgres`).
public enum TestDatabase: String, CaseIterable, Sendable {
    case sqlite
    case postgres

    /// Runs `body` with the stores over a new database of this kind, removed afterwards.
    public func withStores(_ body: (StoreSet) async throws -> Void) async throws {
        switch self {
        case .sqlite:
            let folder = NSTemporaryDirectory() + "parley-test-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let database = try ParleyDatabase(directory: folder)
            do {
                try await body(StoreSet(sqlite: database))
            } catch {
                try? database.close()
                throw error
            }
            try database.close()
        case .postgres:
            try await TestPostgres.shared.withDatabase { storage in try await body(StoreSet(postgres: storage)) }
        }
    }
}
