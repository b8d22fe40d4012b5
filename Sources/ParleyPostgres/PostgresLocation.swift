import Foundation
import NIOSSL
import PostgresNIO

/// Where a PostgreSQL database is, read from `PARLEY_DATABASE_URL` as libpq reads a URL:
/// `postgres://user:password@host:5432/database?sslmode=require`, or a Unix socket's folder as the `host` parameter
/// (`postgres://user@/database?host=/run/postgresql`). The password is percent-decoded and never shown.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// How the connection is secured, as libpq's `sslmode` names it.
    public enum SSLMode: String, Sendable, Equatable {
        /// Plain text only.
        case disable
        /// TLS when the server offers it (libpq's default; `allow` is read as this too).
        case prefer
        /// TLS always, the certificate unchecked (as libpq's `require` does).
        case require
        /// TLS always, the certificate checked against the system's authorities, but not its host name.
        case verifyCA = "verify-ca"
        /// TLS always, the certificate and its host name checked.
        case verifyFull = "verify-full"
    }

    public var user: String
    public var password: String?
    /// The host name or address; nil when `socketFolder` is used.
    public var host: String?
    public var port: Int
    /// The folder of the server's Unix socket (`.s.PGSQL.<port>` in it).
    public var socketFolder: String?
    public var database: String
    public var sslMode: SSLMode

    /// Reads a `postgres://` or `postgresql://` URL.
    public init(url text: String) throws(PostgresLocationError) {
        guard let url = URLComponents(string: text), ["postgres", "postgresql"].contains(url.scheme?.lowercased())
        else { throw .notPostgres }
        guard let user = url.user.flatMap({ $0.removingPercentEncoding }), !user.isEmpty else { throw .noUser }
        let parameters = Dictionary(
            (url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        self.user = user
        password = url.password?.removingPercentEncoding
        port = url.port ?? 5432
        guard (1...65535).contains(port) else { throw .badPort }
        let host = url.host?.removingPercentEncoding ?? ""
        let socket = host.hasPrefix("/") ? host : parameters["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        if let socket {
            socketFolder = socket
        } else {
            guard !host.isEmpty || parameters["host"].map({ !$0.isEmpty }) == true else { throw .noHost }
            self.host = host.isEmpty ? parameters["host"] : host
        }
        let path = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        database = path.isEmpty ? user : path
        let mode = parameters["sslmode"] ?? "prefer"
        guard let sslMode = SSLMode(rawValue: mode == "allow" ? "prefer" : mode) else {
            throw .unknownSSLMode(mode)
        }
        self.sslMode = socketFolder == nil ? sslMode : .disable
    }

    /// The location without its password, for logs: `PostgreSQL parley@db.example.com:5432/parley`.
    public var description: String {
        let place = socketFolder.map { "\($0)/.s.PGSQL.\(port)" } ?? "\(host ?? ""):\(port)"
        return "PostgreSQL \(user)@\(place)/\(database)"
    }

    /// The client's configuration for this location.
    var configuration: PostgresClient.Configuration {
        if let socketFolder {
            return PostgresClient.Configuration(
                unixSocketPath: "\(socketFolder)/.s.PGSQL.\(port)", username: user, password: password,
                database: database)
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        let mode: PostgresClient.Configuration.TLS
        switch sslMode {
        case .disable: mode = .disable
        case .prefer:
            tls.certificateVerification = .none
            mode = .prefer(tls)
        case .require:
            tls.certificateVerification = .none
            mode = .require(tls)
        case .verifyCA:
            tls.certificateVerification = .noHostnameVerification
            mode = .require(tls)
        case .verifyFull: mode = .require(tls)
        }
        return PostgresClient.Configuration(
            host: host ?? "", port: port, username: user, password: password, database: database, tls: mode)
    }
}

/// Why `PARLEY_DATABASE_URL` could not be read.
public enum PostgresLocationError: Error, Equatable, CustomStringConvertible {
    case notPostgres
    case noUser
    case noHost
    case badPort
    case unknownSSLMode(String)

    public var description: String {
        switch self {
        case .notPostgres: "PARLEY_DATABASE_URL must be a postgres:// or postgresql:// URL"
        case .noUser: "PARLEY_DATABASE_URL names no user (postgres://user:password@host/database)"
        case .noHost: "PARLEY_DATABASE_URL names no host, and no socket folder as ?host=/path"
        case .badPort: "PARLEY_DATABASE_URL's port must be between 1 and 65535"
        case .unknownSSLMode(let mode):
            "PARLEY_DATABASE_URL's sslmode \"\(mode)\" is none of disable, allow, prefer, require, verify-ca, verify-full"
        }
    }
}
