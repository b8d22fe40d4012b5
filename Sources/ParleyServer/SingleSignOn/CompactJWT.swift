import Foundation

/// The parts of a compact JWS read before its signature is checked: the header's algorithm and key id, and the
/// payload as a JSON object (trusted only after the signature is).
struct CompactJWT {
    /// The header's `alg`.
    let algorithm: String
    /// The header's `kid`, if any.
    let keyID: String?
    /// The payload as a JSON object.
    let payload: [String: Any]

    /// Reads `token`; nil when it is not three base64url parts with a JSON header naming an algorithm and a JSON
    /// object payload.
    init?(_ token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Self.object(parts[0]), let algorithm = header["alg"] as? String,
            let payload = Self.object(parts[1])
        else { return nil }
        self.algorithm = algorithm
        keyID = header["kid"] as? String
        self.payload = payload
    }

    /// A base64url part decoded as a JSON object.
    private static func object(_ part: Substring) -> [String: Any]? {
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }
}
