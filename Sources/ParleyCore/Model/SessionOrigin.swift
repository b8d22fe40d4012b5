import Foundation

/// Where a session began: the client's `User-Agent` (cut to `maxUserAgentLength` characters, control characters
/// dropped) and its address, both nil when unknown.
public struct SessionOrigin: Sendable, Equatable {
    /// The longest `User-Agent` kept; browsers send about 150 characters.
    public static let maxUserAgentLength = 256
    public var userAgent: String?
    public var address: String?

    /// An origin from what the request said; an empty or blank `User-Agent` or address counts as none.
    public init(userAgent: String?, address: String?) {
        let kept = userAgent.map { text in
            String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.properties.generalCategory != .control }))
                .trimmingCharacters(in: .whitespaces)
        }
        if let kept, !kept.isEmpty {
            self.userAgent = String(kept.prefix(Self.maxUserAgentLength))
        }
        if let address, !address.isEmpty { self.address = address }
    }

    /// No known device or address (sessions made outside a request).
    public static let unknown = SessionOrigin(userAgent: nil, address: nil)
}
