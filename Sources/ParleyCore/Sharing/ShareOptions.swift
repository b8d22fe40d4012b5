import Foundation

/// Whether a share shows who shared it.
public enum ShareAuthor: String, Sendable {
    case name, anonymous
}

/// How long a share link works, from the moment it is created or updated.
public enum ShareExpiry: String, Sendable {
    case never
    case day = "1"
    case week = "7"
    case month = "30"

    /// The moment a link made at `now` stops working; nil for never.
    public func date(from now: Date) -> Date? {
        Int(rawValue).map { now.addingTimeInterval(TimeInterval($0) * 24 * 3600) }
    }
}

/// The choices of the share dialog.
public struct ShareOptions: Sendable, Equatable {
    public var author: ShareAuthor
    public var expiry: ShareExpiry
    /// Whether the snapshot shows the model's reasoning with its replies.
    public var includesReasoning: Bool

    /// Creates options; the defaults share anonymously, without expiry, and without the reasoning.
    public init(author: ShareAuthor = .anonymous, expiry: ShareExpiry = .never, includesReasoning: Bool = false) {
        self.author = author
        self.expiry = expiry
        self.includesReasoning = includesReasoning
    }
}
