import Crypto
import Foundation
import ParleyCore

/// Share tokens of 128 random bits (lowercase hex, URL-safe), stored and looked up by their SHA-256 (base64).
struct DigestShareTokens: ShareTokens {
    func make() -> String {
        RandomToken.make(bytes: 16)
    }

    func digest(_ token: String) -> String {
        Data(SHA256.hash(data: Data(token.utf8))).base64EncodedString()
    }
}
