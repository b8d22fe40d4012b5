import ParleyCore

/// What a vendor accepts of an image sent with a turn: its formats, its longest side in pixels and its size in bytes.
public struct ImageLimits: Sendable, Hashable {
    /// The formats sent as they are; any other is converted (a GIF's first frame becomes a PNG).
    public var formats: Set<ImageFormat>
    /// The longest side, in pixels, an image is sent with; larger images are scaled down to it.
    public var maxEdge: Int
    /// The largest encoded image, in bytes, before base64.
    public var maxBytes: Int

    /// Creates limits.
    public init(formats: Set<ImageFormat>, maxEdge: Int, maxBytes: Int) {
        self.formats = formats
        self.maxEdge = maxEdge
        self.maxBytes = maxBytes
    }

    /// Whether an image with `facts` and `byteCount` bytes can be sent unchanged.
    public func accepts(_ facts: ImageFacts, byteCount: Int) -> Bool {
        formats.contains(facts.format) && max(facts.width, facts.height) <= maxEdge && byteCount <= maxBytes
    }
}
