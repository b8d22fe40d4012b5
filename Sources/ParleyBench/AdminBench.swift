import ArgumentParser
import Foundation

/// `parley-bench admin`: the admin dashboard over the usage fixture (a million messages), timed through a release
/// `parley serve`.
struct AdminBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "admin", abstract: "Time the admin dashboard.")

    @Option(help: "The data folder; a usage fixture is written there first when it holds no database.")
    var dataDir = FixtureFolder.defaultPath
    @Option(help: "Messages in the fixture, when one is written.") var messages = 1_000_000
    @Option(help: "Pages to time, comma-separated.") var paths = "/admin,/admin?days=90,/admin/users"
    @Option(help: "Timed requests per page.") var requests = 21
    @Option(help: "The port for the server.") var port = 18_182
    @Option(help: "Where to write the JSON results.") var output = "bench-results/admin.json"

    func run() async throws {
        let size = try await FixtureFolder.ensure(dataDir, messages: messages)
        try createAdmin()
        let server = try LocalServer(dataDirectory: dataDir, port: port)
        defer { server.stop() }
        let figures = try await BenchHTTPClient.with(connections: 4) { client in
            _ = try await server.waitUntilHealthy(client: client)
            let timer = RequestTimer(
                client: client, token: try await BenchSession.start(client: client, parley: server.baseURL).token)
            var figures: [String: Double] = [:]
            for path in paths.split(separator: ",") {
                let summary = Summary(try await timer.time(server.baseURL + path, count: requests).milliseconds)
                figures["\(path) p50 ms"] = summary.p50
                figures["\(path) p95 ms"] = summary.p95
            }
            return figures
        }
        let met = (figures["/admin p50 ms"] ?? .infinity) < 100
        try MicroResult(
            benchmark: "admin (\(String(format: "%.0f", size)) MB fixture, \(requests) requests per page)",
            figures: figures, goal: "/admin under 100 ms: " + (met ? "met" : "missed")
        ).report(to: output)
    }

    /// Makes the bench user an admin with `parley user create --admin`, unless it exists already.
    private func createAdmin() throws {
        let create = Process()
        create.executableURL = LocalServer.parleyExecutable
        create.arguments = ["user", "create", "--email", BenchSession.email, "--admin", "--data-dir", dataDir]
        let input = Pipe()
        create.standardInput = input
        create.standardOutput = FileHandle.nullDevice
        create.standardError = FileHandle.nullDevice
        try create.run()
        input.fileHandleForWriting.write(Data((BenchSession.password + "\n").utf8))
        try input.fileHandleForWriting.close()
        create.waitUntilExit()
    }
}
