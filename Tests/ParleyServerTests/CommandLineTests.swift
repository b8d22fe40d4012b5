import Foundation
import Testing

/// The real `parley` executable's account command, and `parley-dev`'s.
@Suite("Command line")
struct CommandLineTests {
    /// `parley-dev`, beside `parley`.
    static let developmentExecutable = URL(fileURLWithPath: CrashRecoveryTests.executable)
        .deletingLastPathComponent().appendingPathComponent("parley-dev").path

    /// Runs `parley` (or `executable`) with arguments and standard input; returns the exit status and output. The wait
    /// happens on a dispatch thread, never on one of the few cooperative threads that in-process servers need.
    static func run(
        _ arguments: [String], input: String, environment: [String: String] = [:],
        executable: String = CrashRecoveryTests.executable
    ) async throws -> (Int32, String) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        try runBlocking(arguments, input: input, environment: environment, executable: executable)
                    })
            }
        }
    }

    /// Runs `executable` and waits for it on the calling thread.
    private static func runBlocking(
        _ arguments: [String], input: String, environment: [String: String],
        executable: String
    ) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ["PARLEY_BCRYPT_COST": "4", "PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        let stdin = Pipe(), output = Pipe()
        process.standardInput = stdin
        process.standardOutput = output
        process.standardError = output
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        return (
            process.terminationStatus,
            String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        )
    }

    @Test("user create reads the password from stdin, refuses short passwords and duplicates, and the account signs in")
    func createUser() async throws {
        let directory = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (status, output) = try await Self.run(
            ["user", "create", "--email", "cli@example.com", "--admin", "--data-dir", directory],
            input: "correct horse battery\n")
        #expect(status == 0, "\(output)")
        #expect(output.contains("Created admin account cli@example.com"))
        let (short, shortOutput) = try await Self.run(
            ["user", "create", "--email", "b@example.com", "--data-dir", directory], input: "short\n")
        #expect(short != 0)
        #expect(shortOutput.contains("at least 8"))
        let (duplicate, duplicateOutput) = try await Self.run(
            ["user", "create", "--email", "CLI@example.com", "--data-dir", directory],
            input: "another long password\n")
        #expect(duplicate != 0)
        #expect(duplicateOutput.contains("exists already"))
        try await withTestServer(dataDirectory: directory) { server in
            let api = try await APIClient.signIn(server, email: "cli@example.com")
            #expect(try await api.request(.GET, "/api/conversations").status == 200)
        }
    }

    @Test("the server's command lists no development tools; parley-dev has them")
    func developmentToolsAreApart() async throws {
        let (_, help) = try await Self.run(["--help"], input: "")
        #expect(help.contains("serve") && !help.contains("mock-upstream") && !help.contains("usage-fixture"), "\(help)")
        let (status, devHelp) = try await Self.run(["--help"], input: "", executable: Self.developmentExecutable)
        #expect(status == 0 && devHelp.contains("mock-upstream") && devHelp.contains("usage-fixture"), "\(devHelp)")
    }

    @Test(
        "mock-upstream refuses a TLS certificate without its key and a self-signed certificate beside given files",
        arguments: [
            (["--tls-certificate", "cert.pem"], "go together"), (["--tls-key", "key.pem"], "go together"),
            (["--tls-self-signed", "/tmp", "--tls-certificate", "cert.pem", "--tls-key", "key.pem"], "leave out"),
        ])
    func mockTLSFlags(flags: [String], message: String) async throws {
        let (status, output) = try await Self.run(
            ["mock-upstream", "--port", "0"] + flags, input: "",
            executable: Self.developmentExecutable)
        #expect(status != 0)
        #expect(output.contains(message), "\(output)")
    }
}
