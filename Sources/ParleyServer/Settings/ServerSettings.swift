import Foundation
import Logging
import ParleyCore

/// Every setting of the server, read from the environment (and overridden by command-line flags).
public struct ServerSettings: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var dataDirectory = "./data"
    /// A PostgreSQL database to keep everything in instead of the data folder's SQLite file (`PARLEY_DATABASE_URL`,
    /// read by `parley serve`).
    public var databaseURL: String?
    public var templatesDirectory = "Templates"
    public var publicDirectory = "Public"
    public var jwtSecret: String?
    public var signup = SignupMode.firstUser
    /// Single sign-on through an OpenID Connect provider, when configured (`PARLEY_OIDC_*`).
    public var singleSignOn: SingleSignOnSettings?
    /// Whether people may sign in with a password (`PARLEY_PASSWORD_LOGIN`); when off, admins still may (a
    /// break-glass account) and everybody else uses single sign-on.
    public var passwordLogin = true
    /// Whether people may share their own assistants (`PARLEY_USER_SHARING`); when off, only admins make an assistant
    /// shared.
    public var userSharing = true
    /// How long single sign-on waits before asking a provider that did not answer again.
    public var singleSignOnRetryDelay: Duration = .seconds(30)
    /// The wall clock sign-in deadlines and ID-token expiry are checked by (tests move it).
    public var wallClock: @Sendable () -> Date = { Date() }
    /// `nil` means automatic: secure unless the host is loopback.
    public var cookieSecure: Bool?
    public var bcryptCost: UInt8 = 12
    public var sessionLifetime: TimeInterval = 7 * 24 * 3600
    public var generation = GenerationSettings()
    public var demoTokenDelay: Duration = .milliseconds(25)
    /// How long an upstream may stay silent mid-reply before the reply fails.
    public var upstreamIdleTimeout: Duration = .seconds(60)
    /// How long a connection to an upstream may take to open (the HTTP client tries again within it; a reply whose
    /// connection could not be opened in that time fails without more tries).
    public var upstreamConnectTimeout: Duration = .seconds(5)
    /// How long an upstream may take to send a reply's first token.
    public var upstreamFirstTokenTimeout: Duration = .seconds(120)
    /// A PEM file of certificate authorities trusted for HTTPS upstreams besides the system's
    /// (`PARLEY_UPSTREAM_CA_FILE`): a self-hosted model server behind a private authority.
    public var upstreamCertificateAuthorities: String?
    /// The PEM certificate chain (`PARLEY_TLS_CERTIFICATE`) and private key (`PARLEY_TLS_KEY`) to serve HTTPS with;
    /// both or neither. Over HTTPS, clients that offer HTTP/2 (every browser) get it, and a browser's event streams
    /// then share one connection.
    public var tlsCertificate: String?
    public var tlsKey: String?
    /// How long an HTTPS connection may take to finish its TLS handshake before it is closed.
    public var tlsHandshakeTimeout: Duration = .seconds(10)
    /// How long an HTTP/2 connection may stay open with no stream before it is closed (a browser opens a new one when
    /// it next asks): it holds one of the `maxConnections` places, which, unlike an idle HTTP/1.1 connection's, cannot
    /// be taken back for a newcomer.
    public var http2IdleTimeout: Duration = .seconds(120)
    /// The `PARLEY_CONFIG` file of providers and models, if any.
    public var providerConfigPath: String?
    public var logLevel = Logger.Level.info
    /// The reverse proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed (`PARLEY_TRUSTED_PROXIES`).
    public var trustedProxies = TrustedProxies.none
    /// When set, `/metrics` answers only requests with this bearer token; unset, only direct loopback requests.
    public var metricsToken: String?
    /// Replies one user may start per minute (sends, regenerations, new conversations); nil means unlimited.
    public var sendRateLimit: Int? = 30
    /// Sign-ups one address may make in 5 minutes (each hashes a password); nil means unlimited (`PARLEY_SIGNUP_RATE`).
    public var signupRateLimit: Int? = 10
    /// How often OpenAI-compatible providers are asked for their models again; nil never (`PARLEY_MODEL_REFRESH`).
    public var modelRefreshInterval: Duration? = .seconds(600)
    /// How long start-up waits for the providers' model lists; slower ones are added in the background.
    public var modelDiscoveryWait: Duration = .seconds(1)
    /// How long after a model list that did not come it is asked for again (doubling each time, up to the refresh).
    public var modelRetryDelay: Duration = .seconds(5)
    /// The largest image one upload may carry, in bytes (`PARLEY_MAX_UPLOAD_MB`).
    public var maxUploadBytes = 20 * 1024 * 1024
    /// How long one tool call may take before it is cancelled (`PARLEY_TOOL_TIMEOUT_SECONDS`).
    public var toolTimeout: Duration = .seconds(60)
    /// The largest tool result a model is sent, in bytes; more is cut with a note (`PARLEY_TOOL_RESULT_MAX_KB`).
    public var toolResultMaxBytes = 64 * 1024
    /// The largest document one upload may carry, in bytes (`PARLEY_MAX_DOCUMENT_MB`).
    public var maxDocumentBytes = 32 * 1024 * 1024
    /// The bytes of images and message text one user may store, unless an admin sets their own
    /// (`PARLEY_USER_STORAGE_MB`).
    public var userStorageBytes: Int64 = 1024 * 1_048_576
    /// The largest storage quota accepted, in megabytes (16 TiB).
    public static let maxStorageMegabytes: Int64 = 16 << 20
    /// The most conversation event streams one user may hold open at once (`PARLEY_MAX_STREAMS_PER_USER`).
    public var maxEventStreamsPerUser = 32
    /// How long a connection may take to send a request's head, counted from its opening or its previous response,
    /// and so also how long it may stay idle between requests (`PARLEY_IDLE_TIMEOUT`).
    public var idleTimeout: Duration = .seconds(30)
    /// The most client connections open at once; nil: from the process's open-file limit (`FileDescriptorBudget`),
    /// as is `generation.maxRunningReplies` when nil.
    public var maxConnections: Int?
    /// The environment the providers are configured from.
    public var environment: [String: String] = [:]

    /// The shortest `PARLEY_JWT_SECRET` accepted: a shorter one could be guessed offline from any session token.
    public static let minimumSecretBytes = 32

    /// Settings with the product's defaults.
    public init() {}

    /// Settings from `PARLEY_*` and provider variables; a variable that is set but unusable stops start-up, named.
    public init(environment: [String: String]) throws(SettingsError) {
        self.environment = environment
        let read = EnvironmentReader(environment: environment)
        host = read.text("PARLEY_HOST") ?? host
        port =
            try read.value("PARLEY_PORT", expected: "a port number from 0 to 65535") {
                Int($0).filter { (0...65_535).contains($0) }
            } ?? port
        dataDirectory = read.text("PARLEY_DATA_DIR") ?? dataDirectory
        templatesDirectory = read.text("PARLEY_TEMPLATES_DIR") ?? templatesDirectory
        publicDirectory = read.text("PARLEY_PUBLIC_DIR") ?? publicDirectory
        jwtSecret = read.text("PARLEY_JWT_SECRET")
        databaseURL = read.text("PARLEY_DATABASE_URL")
        if let jwtSecret, jwtSecret.utf8.count < Self.minimumSecretBytes {
            throw SettingsError(
                name: "PARLEY_JWT_SECRET", value: "(\(jwtSecret.utf8.count) bytes, not shown)",
                expected: "at least \(Self.minimumSecretBytes) bytes (`openssl rand -hex 32` makes one)")
        }
        signup =
            try read.value("PARLEY_SIGNUP", expected: "open, first-user, sso or closed", SignupMode.init(rawValue:))
            ?? signup
        singleSignOn = try SingleSignOnSettings(read)
        passwordLogin = try read.flag("PARLEY_PASSWORD_LOGIN") ?? passwordLogin
        userSharing = try read.flag("PARLEY_USER_SHARING") ?? userSharing
        if !passwordLogin, singleSignOn == nil {
            throw SettingsError(
                name: "PARLEY_PASSWORD_LOGIN", value: "off",
                expected:
                    "on unless single sign-on is configured (PARLEY_OIDC_ISSUER), or nobody but admins could sign in")
        }
        cookieSecure =
            try read.value("PARLEY_COOKIE_SECURE", expected: "auto, true or false") { text -> Bool?? in
                switch text.lowercased() {
                case "auto": .some(nil)
                case "true", "1", "on", "yes": .some(true)
                case "false", "0", "off", "no": .some(false)
                default: nil
                }
            } ?? nil
        bcryptCost =
            try read.value("PARLEY_BCRYPT_COST", expected: "a whole number from 4 to 31") {
                UInt8($0).filter { (4...31).contains($0) }
            } ?? bcryptCost
        upstreamIdleTimeout = try read.seconds("PARLEY_UPSTREAM_IDLE_TIMEOUT", positive: true) ?? upstreamIdleTimeout
        upstreamConnectTimeout =
            try read.seconds("PARLEY_UPSTREAM_CONNECT_TIMEOUT", positive: true) ?? upstreamConnectTimeout
        upstreamFirstTokenTimeout =
            try read.seconds("PARLEY_UPSTREAM_FIRST_TOKEN_TIMEOUT", positive: true) ?? upstreamFirstTokenTimeout
        providerConfigPath = read.text("PARLEY_CONFIG")
        upstreamCertificateAuthorities = read.text("PARLEY_UPSTREAM_CA_FILE")
        tlsCertificate = read.text("PARLEY_TLS_CERTIFICATE")
        tlsKey = read.text("PARLEY_TLS_KEY")
        generation.shutdownGrace =
            try read.seconds("PARLEY_SHUTDOWN_GRACE", positive: false) ?? generation.shutdownGrace
        generation.modelTitles = try read.flag("PARLEY_MODEL_TITLES") ?? generation.modelTitles
        demoTokenDelay =
            try read.value("PARLEY_DEMO_TOKEN_DELAY_MS", expected: "a whole number of milliseconds") {
                Int64($0).filter { $0 >= 0 }.map { Duration.milliseconds($0) }
            } ?? demoTokenDelay
        logLevel =
            try read.value(
                "PARLEY_LOG_LEVEL", expected: "trace, debug, info, notice, warning, error or critical",
                Logger.Level.init(rawValue:)) ?? logLevel
        metricsToken = read.text("PARLEY_METRICS_TOKEN")
        trustedProxies =
            try read.value(
                "PARLEY_TRUSTED_PROXIES", expected: "addresses and CIDR ranges, such as 127.0.0.1, 10.0.0.0/8, ::1",
                TrustedProxies.init(list:)) ?? trustedProxies
        modelRefreshInterval =
            try read.value("PARLEY_MODEL_REFRESH", expected: "a number of seconds (0: never)") { text -> Duration?? in
                Double(text).filter { $0.isFinite && $0 >= 0 }.map { $0 == 0 ? nil : .milliseconds(Int64($0 * 1000)) }
            } ?? modelRefreshInterval
        maxUploadBytes =
            try read.value("PARLEY_MAX_UPLOAD_MB", expected: "a whole number of megabytes from 1 to 1024") {
                Int($0).filter { (1...1024).contains($0) }.map { $0 * 1024 * 1024 }
            } ?? maxUploadBytes
        toolTimeout = try read.seconds("PARLEY_TOOL_TIMEOUT_SECONDS", positive: true) ?? toolTimeout
        toolResultMaxBytes =
            try read.value("PARLEY_TOOL_RESULT_MAX_KB", expected: "a whole number of kilobytes from 1 to 10240") {
                Int($0).filter { (1...10_240).contains($0) }.map { $0 * 1024 }
            } ?? toolResultMaxBytes
        generation.maxToolSteps =
            try read.value("PARLEY_TOOL_MAX_STEPS", expected: "a whole number of model calls from 1 to 50") {
                Int($0).filter { (1...50).contains($0) }
            } ?? generation.maxToolSteps
        maxDocumentBytes =
            try read.value("PARLEY_MAX_DOCUMENT_MB", expected: "a whole number of megabytes from 1 to 256") {
                Int($0).filter { (1...256).contains($0) }.map { $0 * 1024 * 1024 }
            } ?? maxDocumentBytes
        maxEventStreamsPerUser =
            try read.value("PARLEY_MAX_STREAMS_PER_USER", expected: "a whole number from 1 to 10000") {
                Int($0).filter { (1...10_000).contains($0) }
            } ?? maxEventStreamsPerUser
        idleTimeout = try read.seconds("PARLEY_IDLE_TIMEOUT", positive: true) ?? idleTimeout
        userStorageBytes =
            try read.value(
                "PARLEY_USER_STORAGE_MB", expected: "a whole number of megabytes from 1 to \(Self.maxStorageMegabytes)"
            ) {
                Int64($0).filter { (1...Self.maxStorageMegabytes).contains($0) }.map { $0 * 1_048_576 }
            } ?? userStorageBytes
        signupRateLimit =
            try read.value("PARLEY_SIGNUP_RATE", expected: "a whole number of sign-ups per 5 minutes (0: unlimited)") {
                text -> Int?? in
                Int(text).filter { $0 >= 0 }.map { $0 == 0 ? nil : $0 }
            } ?? signupRateLimit
        sendRateLimit =
            try read.value("PARLEY_SEND_RATE", expected: "a whole number of sends per minute (0: unlimited)") {
                text -> Int?? in
                Int(text).filter { $0 >= 0 }.map { $0 == 0 ? nil : $0 }
            } ?? sendRateLimit
    }

    /// The limits of a message's upload: its images and its documents.
    var uploadLimits: UploadLimits {
        UploadLimits(maxFileBytes: maxUploadBytes, maxFiles: ChatService.maxImagesPerMessage)
            .adding("document", documentLimit)
    }

    /// The limits of the `document` files of an upload.
    var documentLimit: FileFieldLimit {
        FileFieldLimit(maxFileBytes: maxDocumentBytes, maxFiles: ChatService.maxDocumentsPerMessage)
    }

    /// Refuses a templates or static-files folder that is not there, naming its setting and the full path looked at
    /// (a server started outside its source folder would otherwise stop with a bare "file doesn't exist").
    func requireFolders() throws(SettingsError) {
        for (name, path) in [("PARLEY_TEMPLATES_DIR", templatesDirectory), ("PARLEY_PUBLIC_DIR", publicDirectory)] {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue { continue }
            let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
            throw SettingsError(
                name: name, value: path,
                expected: "a folder, and there is none at \(absolute) "
                    + "(start Parley from its source folder, or set \(name))")
        }
    }

    /// Whether the sign-up page may ever create an account with a password.
    var passwordSignUp: Bool { passwordLogin && ![.closed, .sso].contains(signup) }

    /// Whether the server itself serves HTTPS.
    public var servesTLS: Bool { tlsCertificate != nil || tlsKey != nil }

    /// Whether cookies get the `Secure` flag, unless a trusted proxy says the client used HTTPS (then they do).
    public var usesSecureCookies: Bool {
        cookieSecure ?? (servesTLS || !["127.0.0.1", "localhost", "::1"].contains(host))
    }
}
