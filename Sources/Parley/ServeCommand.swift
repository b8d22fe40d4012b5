import ArgumentParser
import Foundation
import Logging
import ParleyCore
import ParleyPostgres
import ParleyServer

/// `parley serve`: runs the server until SIGTERM or SIGINT.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Serve Parley over HTTP or HTTPS.",
        discussion: """
            Every setting comes from the environment (flags override the first three); the README describes each.
              PARLEY_HOST, PARLEY_PORT, PARLEY_DATA_DIR   where to listen, and the folder of parley.sqlite
              PARLEY_DATABASE_URL          postgres://user:password@host:5432/database: keep everything in PostgreSQL
              PARLEY_JWT_SECRET            session signing key, at least 32 bytes (default: generated once, kept in the database)
              PARLEY_SIGNUP                open, first-user (default) or closed
              PARLEY_COOKIE_SECURE         auto (default), true or false
              PARLEY_BCRYPT_COST           4 to 31 (default 12)
              PARLEY_LOG_LEVEL             trace, debug, info (default), notice, warning, error, critical
              PARLEY_SHUTDOWN_GRACE        seconds running replies may finish after SIGTERM (default 10)
              PARLEY_MODEL_TITLES          on (default): ask the model for a title after the first reply; off
              PARLEY_UPSTREAM_CONNECT_TIMEOUT, PARLEY_UPSTREAM_FIRST_TOKEN_TIMEOUT   seconds (defaults 5, 120)
              PARLEY_UPSTREAM_IDLE_TIMEOUT seconds an upstream may stay silent mid-reply (default 60)
              PARLEY_TLS_CERTIFICATE, PARLEY_TLS_KEY   PEM files: serve HTTPS (HTTP/2 or HTTP/1.1)
              PARLEY_UPSTREAM_CA_FILE      PEM certificate authorities trusted for HTTPS providers
              PARLEY_METRICS_TOKEN         when set, /metrics needs this bearer token; unset, only direct loopback requests get it
              PARLEY_TRUSTED_PROXIES       reverse proxies' addresses and CIDR ranges whose X-Forwarded-For/-Proto are believed
              PARLEY_IDLE_TIMEOUT          seconds a connection may take to send a request's head (default 30)
              PARLEY_MAX_STREAMS_PER_USER  conversation event streams one user may hold open (default 32)
              PARLEY_USER_STORAGE_MB       megabytes of images and text one user may store (default 1024)
              PARLEY_SIGNUP_RATE           sign-ups one address may make in 5 minutes (default 10; 0: unlimited)
              PARLEY_SEND_RATE             replies one user may start per minute (default 30; 0: unlimited)
              PARLEY_MAX_UPLOAD_MB         the largest image accepted (default 20; 4 per message)
              PARLEY_MODEL_REFRESH         seconds between model-list refreshes (default 600; 0: start-up only)
              PARLEY_DEMO_TOKEN_DELAY_MS   the demo model's pace (default 25)
              PARLEY_TEMPLATES_DIR, PARLEY_PUBLIC_DIR   where the templates and static files are
              PARLEY_CONFIG                a JSON file of providers, models and prices
              OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, GEMINI_API_KEY, GEMINI_BASE_URL
            A setting that is set but unusable stops start-up with a message naming it.
            """)

    @Option(help: "The address to listen on (PARLEY_HOST).") var host: String?
    @Option(help: "The port to listen on (PARLEY_PORT).") var port: Int?
    @Option(help: "The folder holding parley.sqlite (PARLEY_DATA_DIR).") var dataDir: String?

    func run() async throws {
        var settings = try ServerSettings(environment: ProcessInfo.processInfo.environment)
        if let host { settings.host = host }
        if let port { settings.port = port }
        if let dataDir { settings.dataDirectory = dataDir }
        guard let url = settings.databaseURL else {
            let dataDirectory = settings.dataDirectory
            try await serve(settings, stores: nil, place: "with data in \(dataDirectory)")
            return
        }
        let location = try PostgresLocation(url: url)
        var logger = Logger(label: "parley")
        logger.logLevel = settings.logLevel
        logger.notice("keeping everything in PostgreSQL", metadata: ["database": "\(location)"])
        try await PostgresStorage.withRunning(location, logger: logger) { storage in
            try await serve(
                settings, stores: StoreSet(postgres: storage),
                place: "with data in the PostgreSQL database \(location.database)")
        }
    }

    /// Builds the application over `stores` and serves until signalled; the first line written names the address
    /// (`scheme://host:port`) and `place`.
    private func serve(_ settings: ServerSettings, stores: StoreSet?, place: String) async throws {
        let (scheme, host) = (settings.servesTLS ? "https" : "http", settings.host)
        let app = try await buildApplication(settings: settings, stores: stores) { port in
            // Written unbuffered so that scripts reading the port from a pipe see it at once.
            FileHandle.standardOutput.write(Data("Parley is serving on \(scheme)://\(host):\(port) \(place)\n".utf8))
        }
        try await app.runUntilSignalled()
    }
}
