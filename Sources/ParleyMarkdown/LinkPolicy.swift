/// Decides which URLs links and images may keep: relative URLs, a few harmless schemes, and raster `data:` images.
enum LinkPolicy {
    private static let allowedSchemes: Set<String> = ["http", "https", "mailto", "tel", "ftp", "xmpp"]
    private static let allowedDataImageTypes = ["image/png", "image/gif", "image/jpeg", "image/webp"]

    /// Whether `url` may be emitted; `isImage` additionally admits `data:image/{png,gif,jpeg,webp}` (as cmark does).
    ///
    /// Browsers ignore ASCII whitespace and control characters inside a scheme, so they are dropped before the
    /// scheme is read. Anything with a scheme outside the allowlist is rejected, which also covers
    /// `javascript:`, `vbscript:`, `file:`, `data:text/html` and percent-encoded or otherwise obfuscated schemes.
    static func allows(_ url: String, isImage: Bool) -> Bool {
        let compact = String(decoding: url.utf8.filter { $0 > 0x20 && $0 != 0x7F }, as: UTF8.self).lowercased()
        guard let colon = compact.firstIndex(where: { ":/?#".contains($0) }), compact[colon] == ":" else {
            return true
        }
        let scheme = String(compact[..<colon])
        if allowedSchemes.contains(scheme) { return true }
        guard isImage, scheme == "data" else { return false }
        let payload = compact[compact.index(after: colon)...]
        return allowedDataImageTypes.contains { type in
            payload.hasPrefix(type) && [";", ","].contains(payload.dropFirst(type.count).first)
        }
    }
}
