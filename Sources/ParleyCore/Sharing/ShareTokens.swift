/// Makes share tokens and the digests they are stored and looked up by; the raw token is never stored.
public protocol ShareTokens: Sendable {
    /// A new unguessable, URL-safe token.
    func make() -> String
    /// The digest a token is stored under (a cryptographic hash, so lookups reveal nothing about the token).
    func digest(_ token: String) -> String
}
