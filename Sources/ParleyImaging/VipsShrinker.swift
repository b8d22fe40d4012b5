import CParleyVips

/// Scales and re-encodes images with libvips; each call blocks its thread for the length of the work.
enum VipsShrinker {
    /// Whether libvips started; it is started once, by the first use of this value.
    static let isReady: Bool = parley_vips_start() == 0

    /// An encoded image and its size in pixels.
    struct Output: Sendable {
        var bytes: [UInt8]
        var width: Int
        var height: Int
    }

    /// `input`'s first frame scaled to fit a `maxEdge` square (never enlarged), as JPEG or PNG; nil when libvips
    /// cannot read or write it.
    static func shrink(_ input: [UInt8], maxEdge: Int, asJPEG: Bool, jpegQuality: Int = 85) -> Output? {
        guard isReady else { return nil }
        var image = parley_vips_image()
        let status = input.withUnsafeBytes { buffer in
            parley_vips_shrink(
                buffer.baseAddress, buffer.count, Int32(maxEdge), asJPEG ? 1 : 0,
                Int32(jpegQuality), &image)
        }
        guard status == 0, let bytes = image.bytes else { return nil }
        defer { parley_vips_free(bytes) }
        return Output(
            bytes: [UInt8](UnsafeRawBufferPointer(start: bytes, count: image.length)),
            width: Int(image.width), height: Int(image.height))
    }
}
