import Crypto
import Foundation
import Hummingbird

/// The files of the public directory, read once at start: each is served under a name carrying a hash of its
/// content (`app.css` → `/static/app.1f2e3d4c5b.css`), so browsers may keep it for a year, and templates name it
/// as `{{assets.app_css}}` (the file name with every character other than a letter or digit turned into `_`).
public struct StaticAssets: Sendable {
    /// One file: its bytes, a gzip copy when that is smaller, and the URL that fingerprints it.
    struct Asset: Sendable {
        let fileName: String
        let url: String
        let contentType: String
        let body: ByteBuffer
        let gzipped: ByteBuffer?
        let hash: String
    }

    /// The files by the names a request may use: the plain file name and the fingerprinted one.
    let byName: [String: Asset]
    /// For templates: each asset's key (see the type's comment) and its fingerprinted URL.
    public let urls: [String: String]

    /// Reads every regular file inside `directory` and its folders (hidden files excepted, symbolic links followed, a
    /// dangling one skipped): `katex/katex.min.js` is served as `/static/katex/katex.min.<hash>.js`.
    public init(directory: String) throws {
        var byName: [String: Asset] = [:], urls: [String: String] = [:]
        for fileName in try Self.files(in: directory) {
            let path = directory + "/" + fileName
            let asset = try Self.load(fileName: fileName, data: try Data(contentsOf: URL(fileURLWithPath: path)))
            byName[fileName] = asset
            byName[String(asset.url.dropFirst("/static/".count))] = asset
            urls[Self.templateKey(fileName)] = asset.url
        }
        self.byName = byName
        self.urls = urls
    }

    /// The paths, relative to `directory`, of the regular files inside it and its folders, sorted.
    private static func files(in directory: String, under prefix: String = "") throws -> [String] {
        var files: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: directory + "/" + prefix).sorted()
        where !name.hasPrefix(".") {
            let relative = prefix + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory + "/" + relative, isDirectory: &isDirectory) else {
                continue
            }
            files += isDirectory.boolValue ? try Self.files(in: directory, under: relative + "/") : [relative]
        }
        return files
    }

    /// The asset a request for `/static/{name}` means (`name` may hold folders), plain or fingerprinted.
    func asset(named name: String) -> Asset? { byName[name] }

    /// Whether `name` is the fingerprinted name of its asset (so it never changes and may be cached for good).
    func isFingerprinted(_ name: String) -> Bool { byName[name].map { $0.fileName != name } ?? false }

    /// `app.js` → `app_js`.
    static func templateKey(_ fileName: String) -> String {
        String(fileName.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    /// Builds one asset: the content hash goes before the extension.
    private static func load(fileName: String, data: Data) throws -> Asset {
        let hash = SHA256.hash(data: data).prefix(5).map { String(format: "%02x", $0) }.joined()
        let dot = fileName.lastIndex(of: ".") ?? fileName.endIndex
        let fingerprinted = fileName[..<dot] + "." + hash + fileName[dot...]
        let body = ByteBuffer(bytes: data)
        let type = contentType(extension: String(fileName[dot...].dropFirst()))
        var gzipped: ByteBuffer?
        if Gzip.isCompressible(contentType: type), body.readableBytes >= Gzip.minimumSize {
            let compressed = try Gzip.compress(body, level: .bestCompression)
            if compressed.readableBytes < body.readableBytes { gzipped = compressed }
        }
        return Asset(
            fileName: fileName, url: "/static/" + fingerprinted, contentType: type, body: body, gzipped: gzipped,
            hash: hash)
    }

    /// The media type of a file extension.
    private static func contentType(extension ext: String) -> String {
        switch ext.lowercased() {
        case "js", "mjs": "application/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "webmanifest": "application/manifest+json"
        default: MediaType.getMediaType(forExtension: ext)?.description ?? "application/octet-stream"
        }
    }
}
