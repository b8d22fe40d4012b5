import AsyncHTTPClient
import Foundation
import JWTKit
import Logging
import NIOCore
import ParleyCore

/// The identity provider as Parley talks to it: its discovery document (fetched once it answers), its signing keys
/// (fetched again when a token names a key not seen yet, at most every `keyRefetchInterval`), the code exchange, and
/// the checks that turn an ID token into a `SingleSignOnIdentity`.
actor OpenIDProvider {
    let settings: SingleSignOnSettings
    private let client: HTTPClient
    private let logger: Logger
    private var metadata: ProviderMetadata?
    /// Whether the last attempt to read the discovery document failed.
    private var lastDiscoveryFailed = false
    private var keys = JWTKeyCollection()
    private var keyIDs: Set<String> = []
    private var keysFetchedAt: ContinuousClock.Instant?

    /// The shortest time between two fetches of the signing keys.
    static let keyRefetchInterval: Duration = .seconds(10)
    /// How long one request to the provider may take.
    static let requestTimeout: TimeAmount = .seconds(10)
    /// The largest answer read from the provider.
    static let maxResponseBytes = 1 << 20

    /// Creates the provider's client; nothing is fetched until first needed.
    init(settings: SingleSignOnSettings, client: HTTPClient, logger: Logger) {
        self.settings = settings
        self.client = client
        self.logger = logger
    }

    /// Whether the provider has failed to answer and not answered since (the sign-in page says so).
    var isUnavailable: Bool { metadata == nil && lastDiscoveryFailed }

    /// The discovery document, fetched now if it has not been; its issuer must be the configured one.
    func discovered() async throws(SingleSignOnError) -> ProviderMetadata {
        if let metadata { return metadata }
        do {
            let found = try JSONDecoder().decode(ProviderMetadata.self, from: try await get(settings.discoveryURL))
            guard Self.sameIssuer(found.issuer, settings.issuer) else {
                throw DiscoveryMismatch(found: found.issuer)
            }
            metadata = found
            lastDiscoveryFailed = false
            logger.info("single sign-on provider discovered", metadata: ["issuer": "\(found.issuer)"])
            return found
        } catch {
            if !lastDiscoveryFailed {
                logger.warning(
                    "single sign-on is unavailable: the provider's discovery document could not be read",
                    metadata: ["url": "\(settings.discoveryURL)", "error": "\(error)"])
            }
            lastDiscoveryFailed = true
            throw .unavailable
        }
    }

    /// Exchanges an authorization code for the person's verified identity.
    func identity(code: String, signIn: PendingSignIn, now: Date) async throws(SingleSignOnError)
        -> SingleSignOnIdentity
    {
        let metadata = try await discovered()
        let tokens = try await exchange(code: code, verifier: signIn.codeVerifier, metadata: metadata)
        guard let token = CompactJWT(tokens.idToken), metadata.acceptedAlgorithms.contains(token.algorithm) else {
            logger.warning("single sign-on ID token refused: malformed or an unaccepted algorithm")
            throw .rejected
        }
        let keys = try await verificationKeys(for: token.keyID, metadata: metadata)
        let claims: IDTokenClaims
        do {
            claims = try await keys.verify(tokens.idToken, as: IDTokenClaims.self)
        } catch {
            logger.warning("single sign-on ID token refused: its signature", metadata: ["error": "\(error)"])
            throw .rejected
        }
        guard claims.check(issuer: metadata.issuer, clientID: settings.clientID, nonce: signIn.nonce, now: now) else {
            logger.warning("single sign-on ID token refused: issuer, audience, expiry or nonce")
            throw .rejected
        }
        var rawClaims = token.payload
        // Claims missing from the ID token may come from the user-info endpoint, for the same subject only.
        let groupsPath = ClaimPath(settings.groupsClaim)
        if claims.email == nil || groupsPath.strings(in: rawClaims) == nil, let endpoint = metadata.userinfoEndpoint,
            let accessToken = tokens.accessToken,
            let info = await userInfo(endpoint, accessToken: accessToken), info["sub"] as? String == claims.sub
        {
            rawClaims.merge(info) { idTokenValue, _ in idTokenValue }
        }
        let email = claims.email ?? rawClaims["email"] as? String
        let verified =
            claims.emailVerified?.value ?? (rawClaims["email_verified"] as? Bool)
            ?? ((rawClaims["email_verified"] as? String)?.lowercased() == "true")
        return SingleSignOnIdentity(
            subject: claims.sub, email: email, emailVerified: verified,
            groups: groupsPath.strings(in: rawClaims) ?? [], name: rawClaims["name"] as? String)
    }

    /// The tokens the code is worth: the ID token, and the access token for the user-info endpoint.
    private func exchange(code: String, verifier: String, metadata: ProviderMetadata) async throws(SingleSignOnError)
        -> (idToken: String, accessToken: String?)
    {
        var form = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", settings.redirectURI),
            ("code_verifier", verifier),
        ]
        var request = HTTPClientRequest(url: metadata.tokenEndpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        if let secret = settings.clientSecret, !metadata.prefersSecretInForm {
            let pair = FormEncoding.encode(settings.clientID) + ":" + FormEncoding.encode(secret)
            request.headers.add(name: "Authorization", value: "Basic " + Data(pair.utf8).base64EncodedString())
        } else {
            form.append(("client_id", settings.clientID))
            if let secret = settings.clientSecret { form.append(("client_secret", secret)) }
        }
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(form)))
        struct TokenResponse: Decodable {
            var id_token: String?
            var access_token: String?
        }
        let answer: TokenResponse
        do {
            answer = try JSONDecoder().decode(TokenResponse.self, from: try await send(request))
        } catch {
            logger.warning("single sign-on code exchange failed", metadata: ["error": "\(error)"])
            throw .unavailable
        }
        guard let idToken = answer.id_token else {
            logger.warning("single sign-on code exchange gave no ID token")
            throw .rejected
        }
        return (idToken, answer.access_token)
    }

    /// The signing keys, fetched again when `keyID` is one not seen yet (a provider rotating its keys) unless they
    /// were fetched moments ago.
    private func verificationKeys(for keyID: String?, metadata: ProviderMetadata) async throws(SingleSignOnError)
        -> JWTKeyCollection
    {
        let known = keyID.map { keyIDs.contains($0) } ?? !keyIDs.isEmpty
        let recent = keysFetchedAt.map { $0.duration(to: .now) < Self.keyRefetchInterval } ?? false
        guard !known, !recent else { return keys }
        keysFetchedAt = .now
        do {
            let set = try JSONDecoder().decode(JWKS.self, from: try await get(metadata.jwksURI))
            let fresh = JWTKeyCollection()
            // A key of a kind jwt-kit cannot use (or without an id) is skipped, not fatal.
            var ids: Set<String> = []
            for key in set.keys {
                guard let id = key.keyIdentifier, (try? await fresh.add(jwk: key)) != nil else { continue }
                ids.insert(id.string)
            }
            keys = fresh
            keyIDs = ids
        } catch {
            logger.warning("single sign-on signing keys could not be fetched", metadata: ["error": "\(error)"])
            throw .unavailable
        }
        // A token without a key id is checked against the only key, never guessed among several.
        guard keyID.map(keyIDs.contains) ?? (keyIDs.count == 1) else { throw .rejected }
        return keys
    }

    /// The user-info endpoint's claims, or nil when it does not answer with a JSON object.
    private func userInfo(_ endpoint: String, accessToken: String) async -> [String: Any]? {
        var request = HTTPClientRequest(url: endpoint)
        request.headers.add(name: "Authorization", value: "Bearer " + accessToken)
        request.headers.add(name: "Accept", value: "application/json")
        guard let body = try? await send(request) else { return nil }
        return (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    }

    private func get(_ url: String) async throws -> Data {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        return try await send(request)
    }

    /// The body of a 200 answer, at most `maxResponseBytes`.
    private func send(_ request: HTTPClientRequest) async throws -> Data {
        let response = try await client.execute(request, timeout: Self.requestTimeout)
        let body = try await response.body.collect(upTo: Self.maxResponseBytes)
        guard response.status == .ok else { throw UnexpectedStatus(status: response.status.code) }
        return Data(body.readableBytesView)
    }

    /// Whether two issuer addresses are the same, but for a trailing slash.
    private static func sameIssuer(_ lhs: String, _ rhs: String) -> Bool {
        func trimmed(_ text: String) -> Substring { text.hasSuffix("/") ? text.dropLast() : Substring(text) }
        return trimmed(lhs) == trimmed(rhs)
    }

    /// A discovery document naming another issuer than the one configured.
    struct DiscoveryMismatch: Error {
        let found: String
    }

    /// An answer other than 200.
    struct UnexpectedStatus: Error {
        let status: UInt
    }
}
