import Foundation

/// Keeps the data folder readable by Parley's user alone: the database holds the session-signing key and session ids,
/// so the folder is 0700 and the database, its write-ahead log and shared-memory file are 0600, whatever the umask.
enum DataFolderPermissions {
    /// The database file's name in the data folder, and the files SQLite keeps beside it.
    static let databaseFiles = ["parley.sqlite", "parley.sqlite-wal", "parley.sqlite-shm"]

    /// Creates `directory` (0700) and an empty database file (0600) if missing, and takes group and other access
    /// away from those that exist; returns the paths whose permissions it tightened.
    static func secure(_ directory: String) throws -> [String] {
        var tightened: [String] = []
        if !FileManager.default.fileExists(atPath: directory) {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        if try restrict(directory, to: 0o700) { tightened.append(directory) }
        let database = (directory as NSString).appendingPathComponent(databaseFiles[0])
        try createPrivateFile(database, exclusive: false)
        for name in databaseFiles {
            let path = (directory as NSString).appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: path), try restrict(path, to: 0o600) { tightened.append(path) }
        }
        return tightened
    }

    /// Creates `path` as an empty file readable by its owner alone, unless it exists (then, with `exclusive`, throws).
    static func createPrivateFile(_ path: String, exclusive: Bool) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : 0), 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        close(descriptor)
    }

    /// Removes every permission of `path` outside `mode`; returns whether there were any.
    private static func restrict(_ path: String, to mode: Int) throws -> Bool {
        let current = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? 0
        guard current & ~mode & 0o777 != 0 else { return false }
        try FileManager.default.setAttributes([.posixPermissions: current & mode], ofItemAtPath: path)
        return true
    }
}
