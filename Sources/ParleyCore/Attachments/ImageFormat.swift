/// The image formats Parley accepts, recognised by their bytes; SVG is never one (it can carry script).
public enum ImageFormat: String, Sendable, CaseIterable {
    case png, jpeg, webp, gif

    /// The media type the image is stored and served with.
    public var contentType: String { "image/\(rawValue)" }

    /// The format whose media type this is, if any.
    public init?(contentType: String) {
        guard let format = Self.allCases.first(where: { $0.contentType == contentType }) else { return nil }
        self = format
    }
}

/// What an image's header says about it.
public struct ImageFacts: Sendable, Equatable {
    public var format: ImageFormat
    public var width: Int
    public var height: Int

    /// Creates the facts.
    public init(format: ImageFormat, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }
}

/// Why bytes were refused as an image.
public enum ImageRejection: Error, Sendable, Equatable {
    /// Not PNG, JPEG, WebP or GIF (whatever the file's name or declared type says).
    case unsupported
    /// The file is cut short or its structure is broken.
    case malformed
    /// A side is larger than `ImageInspector.maxSide` (a decompression bomb, or simply too big to send).
    case tooLarge(width: Int, height: Int)
}
