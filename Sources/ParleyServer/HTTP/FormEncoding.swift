import Foundation

/// `application/x-www-form-urlencoded` text, as request bodies and query strings carry it: every byte but the
/// unreserved characters of RFC 3986 percent-encoded.
enum FormEncoding {
    /// One value, encoded.
    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// Names and values, encoded and joined as `name=value&…`.
    static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }

    private static let unreserved = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
}
