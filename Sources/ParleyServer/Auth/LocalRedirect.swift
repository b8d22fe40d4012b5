import Foundation

/// Where a sign-in may send the browser afterwards: only a path on this server, never another site.
enum LocalRedirect {
    /// The path if it is local (one leading `/`, no backslash or control character), else nil.
    static func path(_ candidate: String?) -> String? {
        guard let candidate, candidate.hasPrefix("/"), !candidate.hasPrefix("//"), candidate.count <= 2048,
            !candidate.unicodeScalars.contains(where: { $0 == "\\" || $0.properties.generalCategory == .control })
        else { return nil }
        return candidate
    }

    /// The sign-in page that returns to a local path afterwards.
    static func login(returningTo path: String) -> String {
        "/login?next=" + (path.addingPercentEncoding(withAllowedCharacters: queryValueCharacters) ?? "/")
    }

    private static let queryValueCharacters = CharacterSet(
        charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/")
}
