import NIOPosix
import ParleyCore

/// Makes each image a vendor is sent fit that vendor's limits: an image within them goes as uploaded; a larger one, or
/// one in a format the vendor does not take, is scaled down and re-encoded (JPEG stays JPEG, others become PNG, and
/// JPEG when a PNG is still too large) on NIO's blocking thread pool, never on the caller's. The original is kept for
/// display; fitted images are cached by the original's digest.
public struct ImageFitter: Sendable {
    private let cache: FittedImageCache
    /// The most attempts at a small enough encoding, each after the last, smaller scale or JPEG instead of PNG.
    static let maxAttempts = 6

    /// Creates a fitter whose cache holds at most `cacheBytes` bytes of fitted images.
    public init(cacheBytes: Int = 64 * 1024 * 1024) {
        cache = FittedImageCache(byteBudget: cacheBytes)
    }

    /// `image` as it may be sent within `limits`; unchanged when it already fits, or when it cannot be read or made to
    /// fit (the vendor's own refusal then says why).
    public func fitted(_ image: TurnImage, to limits: ImageLimits) async -> TurnImage {
        guard let facts = try? ImageInspector.inspect(image.bytes),
            !limits.accepts(facts, byteCount: image.bytes.count)
        else {
            return image
        }
        let key = image.digest.map { FittedImageCache.Key(digest: $0, limits: limits) }
        if let key, let kept = cache.image(for: key) { return kept }
        let made = try? await NIOThreadPool.singleton.runIfActive {
            Self.shrunk(image.bytes, facts: facts, limits: limits)
        }
        guard let made = made ?? nil else { return image }
        let fitted = TurnImage(contentType: made.format.contentType, bytes: made.bytes, digest: nil)
        if let key { cache.keep(fitted, for: key) }
        return fitted
    }

    /// The image scaled to the limits' longest side and encoded small enough, or nil when libvips cannot; blocks.
    static func shrunk(
        _ bytes: [UInt8], facts: ImageFacts,
        limits: ImageLimits
    ) -> (format: ImageFormat, bytes: [UInt8])? {
        var edge = min(limits.maxEdge, max(facts.width, facts.height))
        var format: ImageFormat = facts.format == .jpeg || !limits.formats.contains(.png) ? .jpeg : .png
        for _ in 0..<maxAttempts {
            guard let output = VipsShrinker.shrink(bytes, maxEdge: edge, asJPEG: format == .jpeg) else { return nil }
            if output.bytes.count <= limits.maxBytes { return (format, output.bytes) }
            if format == .png {
                format = .jpeg
            } else {
                edge = edge * 3 / 4
            }
        }
        return nil
    }

    /// How many fitted images are cached.
    var cachedCount: Int { cache.count }
}

extension ImageFitter {
    /// `request` with each turn's images fitted to `limits`; the request itself when it carries none.
    public func fitted(_ request: CompletionRequest, to limits: ImageLimits) async -> CompletionRequest {
        guard request.hasImages else { return request }
        var fitted = request
        for index in fitted.turns.indices where !fitted.turns[index].images.isEmpty {
            var images: [TurnImage] = []
            for image in fitted.turns[index].images { images.append(await self.fitted(image, to: limits)) }
            fitted.turns[index].images = images
        }
        return fitted
    }
}
