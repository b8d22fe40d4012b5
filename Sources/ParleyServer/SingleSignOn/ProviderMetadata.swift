/// The parts of an OpenID provider's discovery document Parley uses.
struct ProviderMetadata: Decodable, Sendable, Equatable {
    var issuer: String
    var authorizationEndpoint: String
    var tokenEndpoint: String
    var userinfoEndpoint: String?
    var jwksURI: String
    var tokenEndpointAuthMethods: [String]?
    var signingAlgorithms: [String]?

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case jwksURI = "jwks_uri"
        case tokenEndpointAuthMethods = "token_endpoint_auth_methods_supported"
        case signingAlgorithms = "id_token_signing_alg_values_supported"
    }

    /// Whether the client authenticates at the token endpoint with its secret in the form rather than in
    /// `Authorization: Basic` (only when the provider supports the form alone).
    var prefersSecretInForm: Bool {
        guard let methods = tokenEndpointAuthMethods else { return false }
        return methods.contains("client_secret_post") && !methods.contains("client_secret_basic")
    }

    /// The ID-token signature algorithms accepted: the provider's (RS256 when it lists none), public-key ones only.
    var acceptedAlgorithms: Set<String> {
        Set(signingAlgorithms ?? ["RS256"]).intersection(Self.publicKeyAlgorithms)
    }

    /// The signature algorithms whose keys a provider can publish; never `none` or a shared-secret HMAC.
    static let publicKeyAlgorithms: Set<String> = [
        "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA",
    ]
}
