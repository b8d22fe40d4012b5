import Foundation

/// A sign-in sent to the identity provider and not yet back: what the callback must match and where it goes next.
/// It is stored (under its state's digest), so that the callback may reach any instance serving the site.
public struct PendingSignIn: Sendable, Equatable {
    /// The PKCE code verifier (RFC 7636), whose SHA-256 went out as the challenge.
    public let codeVerifier: String
    public let nonce: String
    /// The local path to open after signing in.
    public let next: String
    public let expiresAt: Date

    /// Creates a pending sign-in.
    public init(codeVerifier: String, nonce: String, next: String, expiresAt: Date) {
        self.codeVerifier = codeVerifier
        self.nonce = nonce
        self.next = next
        self.expiresAt = expiresAt
    }
}
