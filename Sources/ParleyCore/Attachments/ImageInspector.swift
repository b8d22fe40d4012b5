/// Recognises an image by its bytes and reads its size from the header, without decoding pixels: the container is
/// walked to its end marker so that a truncated file is refused, and a side over `maxSide` pixels is refused too.
public enum ImageInspector {
    /// The largest width or height accepted.
    public static let maxSide = 16_384

    /// The format and size of `bytes`, or why they are not an acceptable image.
    public static func inspect(_ bytes: [UInt8]) throws(ImageRejection) -> ImageFacts {
        let reader = ByteReader(bytes)
        let facts: ImageFacts
        if reader.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            facts = try png(reader)
        } else if reader.starts(with: [0xFF, 0xD8, 0xFF]) {
            facts = try jpeg(reader)
        } else if reader.starts(with: Array("GIF87a".utf8)) || reader.starts(with: Array("GIF89a".utf8)) {
            facts = try gif(reader)
        } else if reader.starts(with: Array("RIFF".utf8)), reader.matches(Array("WEBP".utf8), at: 8) {
            facts = try webp(reader)
        } else {
            throw .unsupported
        }
        guard facts.width > 0, facts.height > 0 else { throw .malformed }
        guard facts.width <= maxSide, facts.height <= maxSide else {
            throw .tooLarge(width: facts.width, height: facts.height)
        }
        return facts
    }

    /// PNG: IHDR first, then chunks by their lengths up to IEND.
    private static func png(_ reader: ByteReader) throws(ImageRejection) -> ImageFacts {
        guard reader.matches(Array("IHDR".utf8), at: 12), let width = reader.uint32BE(at: 16),
            let height = reader.uint32BE(at: 20)
        else {
            throw .malformed
        }
        var offset = 8
        while true {
            guard let length = reader.uint32BE(at: offset), reader.has(offset + 12 + Int(length)) else {
                throw .malformed
            }
            if reader.matches(Array("IEND".utf8), at: offset + 4) { break }
            offset += 12 + Int(length)
        }
        return ImageFacts(format: .png, width: Int(width), height: Int(height))
    }

    /// JPEG: segments by their lengths up to a start-of-frame marker (which holds the size); the file ends with EOI.
    private static func jpeg(_ reader: ByteReader) throws(ImageRejection) -> ImageFacts {
        guard reader.bytes.suffix(2).elementsEqual([0xFF, 0xD9]) else { throw .malformed }
        var offset = 2
        while true {
            guard reader.byte(at: offset) == 0xFF, let marker = reader.byte(at: offset + 1) else { throw .malformed }
            if marker == 0xFF { offset += 1; continue }  // fill byte
            guard let length = reader.uint16BE(at: offset + 2), length >= 2 else { throw .malformed }
            let isFrame = (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
            if isFrame {
                guard let height = reader.uint16BE(at: offset + 5), let width = reader.uint16BE(at: offset + 7) else {
                    throw .malformed
                }
                return ImageFacts(format: .jpeg, width: Int(width), height: Int(height))
            }
            offset += 2 + Int(length)
        }
    }

    /// GIF: the logical screen size; then blocks (extensions and images, each a chain of sub-blocks) up to the trailer.
    private static func gif(_ reader: ByteReader) throws(ImageRejection) -> ImageFacts {
        guard let width = reader.uint16LE(at: 6), let height = reader.uint16LE(at: 8), let flags = reader.byte(at: 10)
        else {
            throw .malformed
        }
        var offset = 13 + colorTableSize(flags)
        while true {
            switch reader.byte(at: offset) {
            case 0x3B:
                return ImageFacts(format: .gif, width: Int(width), height: Int(height))
            case 0x21:  // extension: introducer, label, sub-blocks
                offset = try skipSubBlocks(reader, from: offset + 2)
            case 0x2C:  // image: descriptor, local color table, LZW code size, sub-blocks
                guard let imageFlags = reader.byte(at: offset + 9) else { throw .malformed }
                offset = try skipSubBlocks(reader, from: offset + 10 + colorTableSize(imageFlags) + 1)
            default:
                throw .malformed
            }
        }
    }

    /// The bytes of the color table a GIF flags byte announces.
    private static func colorTableSize(_ flags: UInt8) -> Int {
        flags & 0x80 == 0 ? 0 : 3 << (Int(flags & 0x07) + 1)
    }

    /// The offset after a chain of GIF sub-blocks (each a length byte and that many bytes, ended by a zero length).
    private static func skipSubBlocks(_ reader: ByteReader, from start: Int) throws(ImageRejection) -> Int {
        var offset = start
        while true {
            guard let length = reader.byte(at: offset) else { throw .malformed }
            offset += 1 + Int(length)
            if length == 0 { return offset }
        }
    }

    /// WebP: the RIFF size must cover the file; the size comes from the VP8, VP8L or VP8X chunk.
    private static func webp(_ reader: ByteReader) throws(ImageRejection) -> ImageFacts {
        guard let riffSize = reader.uint32LE(at: 4), Int(riffSize) + 8 <= reader.bytes.count, riffSize >= 4 + 8 + 10
        else {
            throw .malformed
        }
        let chunk = 12
        if reader.matches(Array("VP8X".utf8), at: chunk) {
            guard let width = reader.uint24LE(at: chunk + 12), let height = reader.uint24LE(at: chunk + 15) else {
                throw .malformed
            }
            return ImageFacts(format: .webp, width: width + 1, height: height + 1)
        }
        if reader.matches(Array("VP8L".utf8), at: chunk) {
            guard reader.byte(at: chunk + 8) == 0x2F, let bits = reader.uint32LE(at: chunk + 9) else {
                throw .malformed
            }
            return ImageFacts(format: .webp, width: Int(bits & 0x3FFF) + 1, height: Int((bits >> 14) & 0x3FFF) + 1)
        }
        if reader.matches(Array("VP8 ".utf8), at: chunk) {
            guard reader.matches([0x9D, 0x01, 0x2A], at: chunk + 11), let width = reader.uint16LE(at: chunk + 14),
                let height = reader.uint16LE(at: chunk + 16)
            else { throw .malformed }
            return ImageFacts(format: .webp, width: Int(width & 0x3FFF), height: Int(height & 0x3FFF))
        }
        throw .malformed
    }
}

/// Bounds-checked reads of integers at offsets of a byte array (every read past the end is `nil`).
private struct ByteReader {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func has(_ count: Int) -> Bool { count >= 0 && count <= bytes.count }
    func byte(at offset: Int) -> UInt8? { offset >= 0 && offset < bytes.count ? bytes[offset] : nil }
    func starts(with prefix: [UInt8]) -> Bool { matches(prefix, at: 0) }

    func matches(_ expected: [UInt8], at offset: Int) -> Bool {
        has(offset + expected.count) && bytes[offset..<offset + expected.count].elementsEqual(expected)
    }

    func uint16BE(at offset: Int) -> UInt16? {
        guard has(offset + 2) else { return nil }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    func uint16LE(at offset: Int) -> UInt16? {
        guard has(offset + 2) else { return nil }
        return UInt16(bytes[offset + 1]) << 8 | UInt16(bytes[offset])
    }

    func uint24LE(at offset: Int) -> Int? {
        guard has(offset + 3) else { return nil }
        return Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset])
    }

    func uint32BE(at offset: Int) -> UInt32? {
        guard has(offset + 4) else { return nil }
        return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    func uint32LE(at offset: Int) -> UInt32? {
        guard has(offset + 4) else { return nil }
        return bytes[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }
}
