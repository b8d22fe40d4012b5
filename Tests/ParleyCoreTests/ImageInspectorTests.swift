import Foundation
import ParleyCore
import Testing

/// Recognising images by their bytes: real files made by Pillow's encoders, and broken, disguised and oversized ones.
@Suite struct ImageInspectorTests {
    static func fixture(_ name: String) throws -> [UInt8] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        return [UInt8](try Data(contentsOf: root.appendingPathComponent("Fixtures/images/\(name)")))
    }

    @Test(
        "each format is recognised with its size",
        arguments: [
            ("gradient.png", ImageFormat.png, 64, 48), ("gradient.jpg", .jpeg, 64, 48), ("gradient.gif", .gif, 64, 48),
            ("gradient.webp", .webp, 64, 48), ("gradient-lossless.webp", .webp, 64, 48),
            ("translucent.webp", .webp, 30, 20),
        ])
    func recognises(_ name: String, _ format: ImageFormat, _ width: Int, _ height: Int) throws {
        #expect(
            try ImageInspector.inspect(try Self.fixture(name))
                == ImageFacts(format: format, width: width, height: height))
    }

    @Test(
        "every fixture cut short anywhere is refused, never misread",
        arguments: [
            "gradient.png", "gradient.jpg", "gradient.gif", "gradient.webp", "gradient-lossless.webp",
            "translucent.webp",
        ])
    func truncated(_ name: String) throws {
        let bytes = try Self.fixture(name)
        for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 97)) {
            #expect(throws: ImageRejection.self) { try ImageInspector.inspect(Array(bytes.prefix(length))) }
        }
    }

    @Test func textSVGAndHTMLAreNotImages() {
        for text in ["hello", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>", "<!doctype html><script>x</script>", ""] {
            #expect(throws: ImageRejection.unsupported) { try ImageInspector.inspect(Array(text.utf8)) }
        }
    }

    @Test func aHeaderClaimingHugeSidesIsRefusedAsTooLarge() throws {
        var png = try Self.fixture("gradient.png")
        png.replaceSubrange(16..<24, with: [0, 0, 0x4E, 0x20, 0, 0, 0, 1])  // 20,000 × 1
        #expect(throws: ImageRejection.tooLarge(width: 20_000, height: 1)) { try ImageInspector.inspect(png) }
        png.replaceSubrange(16..<24, with: [0, 0, 0x40, 0, 0, 0, 0x40, 0])  // 16,384 × 16,384 is the limit, accepted
        #expect(try ImageInspector.inspect(png).width == 16_384)
        png.replaceSubrange(16..<24, with: [0, 0, 0, 0, 0, 0, 0, 1])  // a zero side is broken
        #expect(throws: ImageRejection.malformed) { try ImageInspector.inspect(png) }
    }

    @Test func aPNGSignatureWithGarbageAfterIsMalformed() {
        let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0xFF, count: 64)
        #expect(throws: ImageRejection.malformed) { try ImageInspector.inspect(bytes) }
    }

    @Test(
        "file names keep their last component, lose control characters and quotes, and never end empty",
        arguments: [
            ("cat.png", "cat.png"), ("../../etc/passwd", "passwd"), ("C:\\Users\\me\\dog.jpg", "dog.jpg"),
            ("evil\r\nSet-Cookie: x=1.png", "evilSet-Cookie: x=1.png"), ("a\"b;c.png", "abc.png"), ("", "image.png"),
            ("..", "image.png"),
            ("été 🌞.png", "été 🌞.png"),
        ])
    func cleanNames(_ given: String, _ kept: String) throws {
        #expect(try NewImage(fileName: given, bytes: try Self.fixture("gradient.png")).fileName == kept)
    }
}
