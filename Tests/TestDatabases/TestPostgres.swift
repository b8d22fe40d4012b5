import Foundation
import Logging
import ParleyPostgres
import PostgresNIO

/// A throwaway PostgreSQL server from Debian's package for the test process: made with `initdb` in a temporary folder
/// and started on a Unix socket there (no TCP port) at first use, as the `postgres` user when the tests
/// run as root (PostgreSQL refuses root), and stopped, its folder removed, when the process exits. Each test gets a
/// database of its own.
public actor TestPostgres {
    /// The server of the test process.
    public static let shared = TestPostgres()

    /// The server's folder: its data and its socket.
    public static let folder = NSTemporaryDirectory() + "parley-postgres-\(getpid())"

    /// Runs `body` with a new database (migrated unless `migrated` is false), dropped afterwards.
    public nonisolated func withDatabase(migrated: Bool = true, _ body: (PostgresStorage) async throws -> Void)
        async throws
    {
        try await start()
        let name = "t" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await Self.run("createdb", ["-h", Self.folder, "-U", "parley", name])
        let location = try PostgresLocation(url: "postgres://parley@/\(name)?host=\(Self.folder)")
        let database = PostgresStorage(location: location, logger: Logger(label: "parley-test-postgres"))
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await database.run() }
                defer { group.cancelAll() }
                // The pool's run begins before the first query leases a connection (else postgres-nio warns of it).
                await Task.yield()
                if migrated { try await database.migrate() }
                try await body(database)
            }
        } catch {
            try? await Self.run("dropdb", ["--force", "-h", Self.folder, "-U", "parley", name])
            throw error
        }
        try await Self.run("dropdb", ["--force", "-h", Self.folder, "-U", "parley", name])
    }

    /// The server's start, made once; every test waits for it.
    private var starting: Task<Void, any Error>?

    /// Makes and starts the server once.
    private func start() async throws {
        if starting == nil { starting = Task { try await Self.makeAndStart() } }
        try await starting?.value
    }

    /// Makes the server's folder and data, and starts the server as a child of this process (not through `pg_ctl`:
    /// Foundation's `Process` sees a program end only once every process it started has let go of a socket it
    /// inherits, which a server `pg_ctl` leaves running never does); its stop is arranged for the process's exit.
    private static func makeAndStart() async throws {
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        atexit { TestPostgres.stopAtExit() }
        if getuid() == 0 {
            try FileManager.default.setAttributes([.ownerAccountName: "postgres"], ofItemAtPath: folder)
        }
        try await run(
            "initdb", ["-D", folder + "/data", "-U", "parley", "--auth=trust", "-E", "UTF8", "--locale=C", "-N"],
            asServer: true)
        // Durability is not what the tests check: no fsync, and room for every test's pool at once.
        let server = process(
            "postgres",
            [
                "-D", folder + "/data", "-k", folder, "-c", "listen_addresses=", "-c", "fsync=off",
                "-c", "full_page_writes=off", "-c", "synchronous_commit=off", "-c", "max_connections=400",
            ], asServer: true)
        _ = FileManager.default.createFile(atPath: folder + "/server.log", contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/server.log"))
        server.standardOutput = log
        server.standardError = log
        try server.run()
        // Waits for the server to take connections, a condition (`pg_isready`), for at most 30 s.
        let deadline = ContinuousClock.now + .seconds(30)
        while (try? await run("pg_isready", ["-q", "-h", folder, "-U", "parley"])) == nil {
            guard server.isRunning, ContinuousClock.now < deadline else {
                let text = (try? String(contentsOfFile: folder + "/server.log", encoding: .utf8)) ?? ""
                throw TestPostgresFailure(description: "the test PostgreSQL did not start: \(text)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Stops the server at once (SIGQUIT, PostgreSQL's immediate shutdown) and removes its folder once it is gone:
    /// the process is ending.
    private static func stopAtExit() {
        let pidFile = (try? String(contentsOfFile: folder + "/data/postmaster.pid", encoding: .utf8)) ?? ""
        if let pid = pidFile.split(separator: "\n").first.flatMap({ pid_t($0) }), kill(pid, SIGQUIT) == 0 {
            for _ in 0..<100 where kill(pid, 0) == 0 { usleep(20_000) }
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The folder of PostgreSQL's programs: the newest of Debian's `/usr/lib/postgresql/<version>/bin`.
    static let programs: String = {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let newest = versions.compactMap(Int.init).max().map(String.init) ?? "15"
        return "/usr/lib/postgresql/\(newest)/bin/"
    }()

    /// A process of PostgreSQL's `program`; run as the `postgres` user when `asServer` and the tests run as root.
    private static func process(_ program: String, _ arguments: [String], asServer: Bool = false) -> Process {
        let process = Process()
        if asServer, getuid() == 0 {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments = ["-u", "postgres", "--", programs + program] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: programs + program)
            process.arguments = arguments
        }
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        return process
    }

    /// Runs `program` to its end, off the cooperative threads; throws with its output when it fails.
    private static func run(_ program: String, _ arguments: [String], asServer: Bool = false) async throws {
        let process = process(program, arguments, asServer: asServer)
        // Output goes to a file, read if the program fails.
        let outputPath = folder + "/\(program)-\(UUID().uuidString).out"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = output
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        guard status == 0 else {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw TestPostgresFailure(description: "\(program) failed (\(status)): \(text)")
        }
    }
}

/// A step of starting the test server that failed.
public struct TestPostgresFailure: Error, CustomStringConvertible {
    public let description: String

    /// A failure saying `description`.
    public init(description: String) {
        self.description = description
    }
}

extension PostgresStorage {
    /// Runs one statement of SQL, for what no store writes.
    public func execute(_ sql: String) async throws {
        try await withTransaction { connection in
            _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Self.testLogger)
        }
    }

    /// The integer one query gives (-1 for no row), its `?`s bound to `arguments` in order.
    public func integer(_ sql: String, _ arguments: [Int64]) async throws -> Int {
        var bindings = PostgresBindings()
        var numbered = ""
        for character in sql {
            guard character == "?" else {
                numbered.append(character)
                continue
            }
            bindings.append(arguments[bindings.count])
            numbered += "$\(bindings.count)"
        }
        let query = PostgresQuery(unsafeSQL: numbered, binds: bindings)
        do {
            let row = try await withTransaction { connection in
                try await connection.query(query, logger: Self.testLogger).collect().first
            }
            return try row.map { Int(try $0.decode(Int64.self)) } ?? -1
        } catch {
            throw TestPostgresFailure(description: String(reflecting: error))
        }
    }

    /// The logger of the tests' own queries.
    private static let testLogger = Logger(label: "parley-test-postgres")
}
