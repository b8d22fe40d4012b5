import Foundation
import Logging
import ParleyCore

/// Who may create an account through the sign-up page.
public enum SignupMode: String, Sendable {
    /// Anyone; the first account becomes admin.
    case open
    /// Only the first account (which becomes admin).
    case firstUser = "first-user"
    /// Nobody; accounts come from `parley user create`.
    case closed
}

/// Every setting of the server, read from the environment (and overridden by command-line flags).
public struct ServerSettings: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var dataDirectory = "./data"
    public var templatesDirectory = "Templates"
    public var publicDirectory = "Public"
    public var jwtSecret: String?
    public var signup = SignupMode.firstUser
    /// `nil` means automatic: secure unless the host is loopback.
    public var cookieSecure: Bool?
    public var bcryptCost: UInt8 = 12
    public var sessionLifetime: TimeInterval = 7 * 24 * 3600
    public var generation = GenerationSettings()
    public var demoTokenDelay: Duration = .milliseconds(25)
    /// How long an upstream may stay silent mid-reply before the reply fails.
    public var upstreamIdleTimeout: Duration = .seconds(60)
    public var logLevel = Logger.Level.info
    /// The environment the providers are configured from.
    public var environment: [String: String] = [:]

    /// Settings with the product's defaults.
    public init() {}

    /// Settings from `PARLEY_*` and provider variables.
    public init(environment: [String: String]) {
        self.environment = environment
        host = environment["PARLEY_HOST"] ?? host
        port = environment["PARLEY_PORT"].flatMap(Int.init) ?? port
        dataDirectory = environment["PARLEY_DATA_DIR"] ?? dataDirectory
        templatesDirectory = environment["PARLEY_TEMPLATES_DIR"] ?? templatesDirectory
        publicDirectory = environment["PARLEY_PUBLIC_DIR"] ?? publicDirectory
        jwtSecret = environment["PARLEY_JWT_SECRET"].flatMap { $0.isEmpty ? nil : $0 }
        signup = environment["PARLEY_SIGNUP"].flatMap(SignupMode.init(rawValue:)) ?? signup
        switch environment["PARLEY_COOKIE_SECURE"]?.lowercased() {
        case "true", "1", "on", "yes": cookieSecure = true
        case "false", "0", "off", "no": cookieSecure = false
        default: cookieSecure = nil
        }
        bcryptCost = environment["PARLEY_BCRYPT_COST"].flatMap(UInt8.init).map { min(max($0, 4), 31) } ?? bcryptCost
        if let seconds = environment["PARLEY_UPSTREAM_IDLE_TIMEOUT"].flatMap(Double.init) {
            upstreamIdleTimeout = .milliseconds(Int64(seconds * 1000))
        }
        if let millis = environment["PARLEY_DEMO_TOKEN_DELAY_MS"].flatMap(Int64.init) {
            demoTokenDelay = .milliseconds(millis)
        }
        logLevel = environment["PARLEY_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? logLevel
    }

    /// Whether cookies get the `Secure` flag.
    public var usesSecureCookies: Bool {
        cookieSecure ?? !["127.0.0.1", "localhost", "::1"].contains(host)
    }
}
