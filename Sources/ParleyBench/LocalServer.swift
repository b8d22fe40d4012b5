import AsyncHTTPClient
import Foundation

/// A `parley serve` the bench starts itself on loopback (pinned to CPU 0 with `taskset` on a multi-core machine),
/// with the settings `scripts/bench.sh` uses.
final class LocalServer {
    let process = Process()
    let baseURL: String
    let started: ContinuousClock.Instant

    /// Starts `parley serve` from the folder of this executable on `port` with `dataDirectory`.
    init(dataDirectory: String, port: Int) throws {
        let parley = Self.parleyExecutable.path
        let serve = [parley, "serve", "--port", "\(port)", "--data-dir", dataDirectory]
        let taskset = "/usr/bin/taskset"
        if ProcessInfo.processInfo.activeProcessorCount >= 2, FileManager.default.isExecutableFile(atPath: taskset) {
            process.executableURL = URL(fileURLWithPath: taskset)
            process.arguments = ["-c", "0"] + serve
        } else {
            process.executableURL = URL(fileURLWithPath: parley)
            process.arguments = Array(serve.dropFirst())
        }
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in [
            "PARLEY_LOG_LEVEL": "warning", "PARLEY_BCRYPT_COST": "4", "PARLEY_MODEL_TITLES": "off",
            "PARLEY_SEND_RATE": "0",
        ] {
            environment[key] = value
        }
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        baseURL = "http://127.0.0.1:\(port)"
        started = .now
        try process.run()
    }

    /// `parley`, next to this executable.
    static var parleyExecutable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("parley")
    }

    /// The server process, for its CPU time and memory.
    var measured: ServerProcess { ServerProcess(pid: process.processIdentifier) }

    /// Polls `/healthz` every 2 ms for up to 30 s; returns the milliseconds from process start to the first answer.
    func waitUntilHealthy(client: HTTPClient) async throws -> Double {
        for _ in 0..<15_000 {
            guard process.isRunning else {
                throw BenchError("parley serve exited with status \(process.terminationStatus)")
            }
            if let response = try? await client.execute(
                HTTPClientRequest(url: baseURL + "/healthz"), timeout: .seconds(1)),
                response.status == .ok
            {
                return started.duration(to: .now).milliseconds
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        throw BenchError("parley serve did not answer /healthz within 30 s")
    }

    /// Stops the server and waits for it to exit.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
