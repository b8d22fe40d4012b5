import Foundation
import ParleyCore
import ParleyStore
import Testing

@testable import ParleyServer

/// The database holds the session key and session ids: its folder, files and backups are readable by Parley's user
/// alone, whatever the umask, and the session key is long enough not to be guessed.
@Suite("Security: secrets at rest")
struct SecretsAtRestTests {
    @Test(
        "a new data folder is 0700 and the database, its WAL and shared-memory files are 0600; an existing 0755 folder and 0644 files are tightened and named"
    )
    func databaseFilesArePrivate() async throws {
        let fresh = try makeTempDirectory() + "/data"
        let database = try ParleyDatabase(directory: fresh)
        _ = try await SQLiteAccountStore(database: database).setting("probe") { "written" }
        #expect(try Self.mode(fresh) == 0o700)
        for name in ["parley.sqlite", "parley.sqlite-wal", "parley.sqlite-shm"] {
            #expect(try Self.mode(fresh + "/" + name) == 0o600, "\(name)")
        }
        try database.close()

        let loose = try makeTempDirectory()
        let reopened = try ParleyDatabase(directory: fresh)
        try reopened.close()
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fresh)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: fresh + "/parley.sqlite")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: loose)
        let tightened = try ParleyDatabase(directory: fresh)
        #expect(tightened.tightenedPermissions == [fresh, fresh + "/parley.sqlite"])
        #expect(try Self.mode(fresh) == 0o700 && Self.mode(fresh + "/parley.sqlite") == 0o600)
        #expect(try await SQLiteAccountStore(database: tightened).setting("probe") { "again" } == "written")

        let backup = loose + "/copy.sqlite"
        try await tightened.backup(to: backup)
        #expect(try Self.mode(backup) == 0o600)
        await #expect(throws: StoreError.self) { try await tightened.backup(to: backup) }
        try tightened.close()
    }

    @Test("under umask 000, parley user create makes a 0700 folder and a 0600 database, and parley backup a 0600 file")
    func umaskDoesNotLoosen() async throws {
        let folder = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let parley = CrashRecoveryTests.executable
        let script =
            "umask 000 && '\(parley)' user create --email a@example.com --admin --data-dir '\(folder)/data'"
            + " && '\(parley)' backup --to '\(folder)/backup.sqlite' --data-dir '\(folder)/data'"
        let (status, output) = try await CommandLineTests.run(
            ["-c", script], input: "correct horse battery\n", executable: "/bin/sh")
        #expect(status == 0, "\(output)")
        #expect(try Self.mode(folder + "/data") == 0o700)
        #expect(try Self.mode(folder + "/data/parley.sqlite") == 0o600)
        #expect(try Self.mode(folder + "/backup.sqlite") == 0o600)
    }

    @Test("a PARLEY_JWT_SECRET under 32 bytes stops the start, named, without printing it; 32 bytes are accepted")
    func shortSecretIsRefused() throws {
        #expect(
            throws: SettingsError(
                name: "PARLEY_JWT_SECRET", value: "(31 bytes, not shown)",
                expected: "at least 32 bytes (`openssl rand -hex 32` makes one)")
        ) {
            try ServerSettings(environment: ["PARLEY_JWT_SECRET": String(repeating: "s", count: 31)])
        }
        #expect(
            try ServerSettings(environment: ["PARLEY_JWT_SECRET": String(repeating: "s", count: 32)]).jwtSecret?.count
                == 32)
    }

    /// The permission bits of a file or folder.
    private static func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? -1) & 0o777
    }
}
