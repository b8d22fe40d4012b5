import Foundation
import ParleyCore
import Testing

@testable import ParleyImaging

/// Images fitted to a vendor's limits with the real libvips, from images that libvips' own command-line tool and
/// Pillow (the fixtures) made.
@Suite struct ImageFitterTests {
    static let anthropicLike = ImageLimits(formats: [.jpeg, .png, .gif, .webp], maxEdge: 1568, maxBytes: 3_750_000)
    static let noGIF = ImageLimits(formats: [.jpeg, .png, .webp], maxEdge: 2048, maxBytes: 15_000_000)

    /// The bytes of `Tests/Fixtures/images/name`.
    static func fixture(_ name: String) throws -> [UInt8] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        return [UInt8](try Data(contentsOf: root.appendingPathComponent("Fixtures/images/\(name)")))
    }

    /// An image the `vips` command makes: `operation` with `arguments`, written to a file named `name` (whose suffix,
    /// with options such as `[Q=90]`, chooses the encoder).
    static func made(_ operation: String, _ name: String, _ arguments: [String]) throws -> [UInt8] {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("parley-imaging-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent(name).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/vips")
        process.arguments = [operation, file] + arguments
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "vips \(operation) failed")
        let saved = file.split(separator: "[").first.map(String.init) ?? file
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: saved)))
    }

    @Test func anImageWithinTheLimitsGoesAsUploaded() async throws {
        for name in ["gradient.jpg", "gradient.png", "gradient.webp", "gradient.gif"] {
            let image = TurnImage(contentType: "image/x", bytes: try Self.fixture(name), digest: name)
            #expect(await ImageFitter().fitted(image, to: Self.anthropicLike) == image, "\(name)")
        }
    }

    @Test func aLargeJPEGIsScaledToTheLongestSideAndStaysJPEG() async throws {
        let photo = try Self.made("gaussnoise", "big.jpg[Q=90]", ["6000", "4000"])
        #expect(photo.count > Self.anthropicLike.maxBytes)
        let image = TurnImage(contentType: "image/jpeg", bytes: photo)
        let fitted = await ImageFitter().fitted(image, to: Self.anthropicLike)
        let facts = try ImageInspector.inspect(fitted.bytes)
        #expect(facts == ImageFacts(format: .jpeg, width: 1568, height: 1045))
        #expect(fitted.contentType == "image/jpeg")
        #expect(fitted.bytes.count <= Self.anthropicLike.maxBytes)
    }

    @Test func aPNGTooLargeInBytesBecomesAJPEGSmallEnough() async throws {
        let noise = try Self.made("gaussnoise", "noise.png", ["1500", "1000"])
        let limits = ImageLimits(formats: [.jpeg, .png], maxEdge: 2048, maxBytes: 400_000)
        #expect(noise.count > limits.maxBytes)
        let fitted = await ImageFitter().fitted(TurnImage(contentType: "image/png", bytes: noise), to: limits)
        let facts = try ImageInspector.inspect(fitted.bytes)
        #expect(facts.format == .jpeg)
        #expect(fitted.bytes.count <= limits.maxBytes)
        #expect(facts.width <= 1500 && abs(facts.width * 2 - facts.height * 3) <= 3)
    }

    @Test func aGIFGoesAsAPNGOfItsFirstFrameToAVendorWithoutGIF() async throws {
        let gif = try Self.fixture("gradient.gif")
        let original = try ImageInspector.inspect(gif)
        let fitted = await ImageFitter().fitted(TurnImage(contentType: "image/gif", bytes: gif), to: Self.noGIF)
        let facts = try ImageInspector.inspect(fitted.bytes)
        #expect(facts == ImageFacts(format: .png, width: original.width, height: original.height))
        #expect(fitted.contentType == "image/png")
    }

    @Test func aTranslucentImageForAJPEGOnlyVendorIsFlattened() async throws {
        let webp = try Self.fixture("translucent.webp")
        let limits = ImageLimits(formats: [.jpeg], maxEdge: 2048, maxBytes: 1_000_000)
        let fitted = await ImageFitter().fitted(TurnImage(contentType: "image/webp", bytes: webp), to: limits)
        #expect(try ImageInspector.inspect(fitted.bytes).format == .jpeg)
    }

    @Test func bytesThatAreNoImageGoUnchanged() async {
        let broken = TurnImage(contentType: "image/png", bytes: [0x89, 0x50, 0x4E, 0x47, 1, 2, 3])
        #expect(await ImageFitter().fitted(broken, to: Self.anthropicLike) == broken)
    }

    @Test func aFittedImageIsCachedByItsDigestAndLimits() async throws {
        let photo = try Self.made("gaussnoise", "big.jpg", ["3000", "2000"])
        let fitter = ImageFitter()
        let image = TurnImage(contentType: "image/jpeg", bytes: photo, digest: "abc")
        let first = await fitter.fitted(image, to: Self.anthropicLike)
        let second = await fitter.fitted(image, to: Self.anthropicLike)
        #expect(first == second)
        #expect(fitter.cachedCount == 1)
        _ = await fitter.fitted(image, to: Self.noGIF)
        #expect(fitter.cachedCount == 2)
        // Without a digest nothing names the image, so nothing is kept.
        _ = await fitter.fitted(TurnImage(contentType: "image/jpeg", bytes: photo), to: Self.anthropicLike)
        #expect(fitter.cachedCount == 2)
    }

    @Test func theCacheDropsTheLeastRecentlyUsedPastItsBudget() {
        let cache = FittedImageCache(byteBudget: 10)
        let key = { (digest: String) in FittedImageCache.Key(digest: digest, limits: Self.anthropicLike) }
        cache.keep(TurnImage(contentType: "image/png", bytes: [UInt8](repeating: 1, count: 4)), for: key("a"))
        cache.keep(TurnImage(contentType: "image/png", bytes: [UInt8](repeating: 2, count: 4)), for: key("b"))
        #expect(cache.image(for: key("a")) != nil)
        cache.keep(TurnImage(contentType: "image/png", bytes: [UInt8](repeating: 3, count: 4)), for: key("c"))
        #expect(cache.image(for: key("b")) == nil)
        #expect(cache.image(for: key("a")) != nil && cache.image(for: key("c")) != nil)
        cache.keep(TurnImage(contentType: "image/png", bytes: [UInt8](repeating: 4, count: 11)), for: key("d"))
        #expect(cache.count == 2)
    }
}
