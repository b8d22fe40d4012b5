import Foundation

/// A fresh folder under the system's temporary directory, removed when the value goes away.
final class TemporaryFolder {
    let path: String

    /// Creates the folder.
    init() throws {
        path = NSTemporaryDirectory() + "parley-bench-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Removes the folder and everything in it.
    deinit { try? FileManager.default.removeItem(atPath: path) }
}
