import Foundation
import ParleyStore

/// The data folder holding the large usage fixture the start-up and admin benches share, written once.
enum FixtureFolder {
    /// The default folder, kept between runs.
    static let defaultPath = NSTemporaryDirectory() + "parley-bench-startup"

    /// Writes a usage fixture of `messages` messages (1,000 users, a year) into `path` unless it holds a database;
    /// returns the database's size in megabytes.
    static func ensure(_ path: String, messages: Int) async throws -> Double {
        let database = path + "/parley.sqlite"
        if !FileManager.default.fileExists(atPath: database) {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let store = try ParleyDatabase(directory: path)
            _ = try await UsageFixture(users: 1_000, days: 365, messages: messages).write(to: store)
            try store.close()
        }
        return Double((try FileManager.default.attributesOfItem(atPath: database)[.size] as? Int) ?? 0) / 1e6
    }
}
