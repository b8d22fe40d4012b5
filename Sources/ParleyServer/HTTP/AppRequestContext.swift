import Hummingbird
import NIOCore
import ParleyCore

/// The signed-in user of a request, and how they proved it.
public struct Identity: Sendable {
    public var user: User
    public var sessionID: String
    /// Whether the request carried a Bearer token (no CSRF check) rather than the session cookie.
    public var viaBearer: Bool
    /// The personal API key the request carried, when it carried one.
    public var apiKeyID: Int64? = nil
}

/// Parley's request context: the identity, the CSRF token for forms, and the caller's address.
public struct AppRequestContext: RequestContext {
    /// The largest request body read (uploads get their own limit).
    public static let maxBodySize = 1024 * 1024

    public var coreContext: CoreRequestContextStorage
    public var identity: Identity?
    public var csrfToken = ""
    /// Set when the CSRF check of a multipart upload is left to the form reader (the token is a field of the body).
    var csrfCheckedByUploadForm = false

    /// The token an upload form must repeat when the CSRF check was left to it; nil when the middleware checked.
    var csrfTokenForUploadForm: String? { csrfCheckedByUploadForm ? csrfToken : nil }
    /// The socket's peer: the client, or a reverse proxy in front of Parley.
    public let peerAddress: String
    /// The client's address: the peer's, or the one a trusted proxy forwarded (`ClientAddressMiddleware`).
    public var clientAddress: String
    /// Whether cookies set in the response are `Secure` (`ClientAddressMiddleware` decides).
    public var usesSecureCookies = false
    /// The request's `User-Agent`, as sent (`ClientAddressMiddleware` reads it).
    public var userAgent: String?
    /// When Parley began handling the request (its head read): a send's first token is timed from here.
    public let receivedAt = ContinuousClock.now

    /// Creates the context of a new request.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
        clientAddress = peerAddress
    }

    public var maxUploadSize: Int { Self.maxBodySize }

    /// Forms and JSON bodies, each by its content type.
    public var requestDecoder: some RequestDecoder { ParleyRequestDecoder() }

    /// The device and address a session started by this request begins from.
    public var sessionOrigin: SessionOrigin { SessionOrigin(userAgent: userAgent, address: clientAddress) }

    /// The signed-in user, or a 401 (the error layer turns it into a redirect to the login page for browsers).
    public func requireUser() throws -> User {
        guard let user = identity?.user else { throw AppError.unauthenticated }
        return user
    }
}
