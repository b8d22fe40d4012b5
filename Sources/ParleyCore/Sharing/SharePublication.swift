/// What publishing a conversation did.
public enum SharePublication: Sendable, Equatable {
    /// A new link, with the token that reaches it (shown to the owner once; only its digest is kept).
    case created(Share, token: String)
    /// The snapshot of this many live links was replaced; their tokens are unchanged.
    case updated(count: Int)
}
