import Foundation

/// How Parley signs people in through an OpenID Connect provider (`PARLEY_OIDC_*`), and where the provider sends
/// them back (`PARLEY_PUBLIC_URL` + `/auth/sso/callback`).
public struct SingleSignOnSettings: Sendable, Equatable {
    /// The issuer, whose `/.well-known/openid-configuration` describes the provider (`PARLEY_OIDC_ISSUER`).
    public var issuer: String
    public var clientID: String
    /// The client secret (`PARLEY_OIDC_CLIENT_SECRET`); nil for a public client, which PKCE alone protects.
    public var clientSecret: String?
    /// The scopes asked for (`PARLEY_OIDC_SCOPES`); always include `openid`.
    public var scopes = "openid email profile"
    /// The sign-in button's label (`PARLEY_OIDC_NAME`).
    public var buttonLabel = "Sign in with SSO"
    /// The claim that lists the person's groups (`PARLEY_OIDC_GROUPS_CLAIM`); a dotted path reaches into objects,
    /// as in Keycloak's `realm_access.roles`.
    public var groupsClaim = "groups"
    /// The groups whose members are admins (`PARLEY_OIDC_ADMIN_GROUPS`); empty: single sign-on leaves admin alone.
    public var adminGroups: [String] = []
    /// The address the provider sends the browser back to.
    public var redirectURI: String

    /// Creates settings for a provider.
    public init(issuer: String, clientID: String, clientSecret: String?, publicURL: String) {
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        redirectURI = Self.trimmingTrailingSlash(publicURL) + "/auth/sso/callback"
    }

    /// The settings the environment gives, nil when `PARLEY_OIDC_ISSUER` is unset; the client id and
    /// `PARLEY_PUBLIC_URL` are then required, and every address must be http or https.
    init?(_ read: EnvironmentReader) throws(SettingsError) {
        guard let issuer = try read.value("PARLEY_OIDC_ISSUER", expected: "an http or https address", Self.webAddress)
        else { return nil }
        guard let clientID = read.text("PARLEY_OIDC_CLIENT_ID") else {
            throw SettingsError(
                name: "PARLEY_OIDC_CLIENT_ID", value: "", expected: "the client id registered at \(issuer)")
        }
        guard
            let publicURL = try read.value(
                "PARLEY_PUBLIC_URL", expected: "the http or https address people open Parley at", Self.webAddress)
        else {
            throw SettingsError(
                name: "PARLEY_PUBLIC_URL", value: "",
                expected: "the address people open Parley at (such as https://chat.example.com), which single sign-on "
                    + "returns to")
        }
        self.init(
            issuer: issuer, clientID: clientID, clientSecret: read.text("PARLEY_OIDC_CLIENT_SECRET"),
            publicURL: publicURL)
        scopes =
            try read.value("PARLEY_OIDC_SCOPES", expected: "scopes separated by spaces, including openid") { text in
                let scopes = text.split(separator: " ")
                return scopes.contains("openid") ? scopes.joined(separator: " ") : nil
            } ?? scopes
        buttonLabel = read.text("PARLEY_OIDC_NAME").map { String($0.prefix(80)) } ?? buttonLabel
        groupsClaim = read.text("PARLEY_OIDC_GROUPS_CLAIM") ?? groupsClaim
        adminGroups =
            read.text("PARLEY_OIDC_ADMIN_GROUPS").map {
                $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            } ?? []
    }

    /// The address of the provider's discovery document.
    var discoveryURL: String { Self.trimmingTrailingSlash(issuer) + "/.well-known/openid-configuration" }

    /// The text if it is an http or https address with a host.
    private static func webAddress(_ text: String) -> String? {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased()), url.host != nil,
            url.query == nil, url.fragment == nil
        else { return nil }
        return text
    }

    private static func trimmingTrailingSlash(_ text: String) -> String {
        text.hasSuffix("/") ? String(text.dropLast()) : text
    }
}
