import ArgumentParser
import Foundation
import ParleyServer

/// `parley serve`: runs the server until SIGTERM or SIGINT.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Serve Parley over HTTP.")

    @Option(help: "The address to listen on (PARLEY_HOST).") var host: String?
    @Option(help: "The port to listen on (PARLEY_PORT).") var port: Int?
    @Option(help: "The folder holding parley.sqlite (PARLEY_DATA_DIR).") var dataDir: String?

    func run() async throws {
        var settings = ServerSettings(environment: ProcessInfo.processInfo.environment)
        if let host { settings.host = host }
        if let port { settings.port = port }
        if let dataDir { settings.dataDirectory = dataDir }
        let (host, dataDirectory) = (settings.host, settings.dataDirectory)
        let app = try await buildApplication(settings: settings) { port in
            // Written unbuffered so that scripts reading the port from a pipe see it at once.
            FileHandle.standardOutput.write(Data("Parley is serving on http://\(host):\(port) with data in \(dataDirectory)\n".utf8))
        }
        try await app.runService()
    }
}
