import Foundation
import Testing

@testable import ParleyServer

/// The streaming multipart reader on its own: the parts it reports, however the body is cut, and what it refuses.
@Suite struct MultipartReaderTests {
    /// A part as the reader reported it.
    struct Part: Equatable {
        var headers: [String] = []
        var body: [UInt8] = []
    }

    /// Feeds `body` in pieces of `piece` bytes; the parts completed, and whether the closing delimiter was read.
    static func read(_ body: [UInt8], boundary: String = "XyZ", piece: Int = .max) throws -> (
        parts: [Part], finished: Bool
    ) {
        var reader = MultipartReader(boundary: boundary)
        var parts: [Part] = [], current = Part()
        var index = 0
        repeat {
            let end = min(body.count, index + max(1, min(piece, body.count)))
            try reader.feed(body[index..<end]) { event in
                switch event {
                case .header(let name, let value): current.headers.append("\(name)=\(value)")
                case .body(let bytes): current.body += bytes
                case .partComplete:
                    parts.append(current)
                    current = Part()
                }
            }
            index = end
        } while index < body.count
        return (parts, reader.isFinished)
    }

    static let form = Array(
        """
        preamble to ignore\r
        --XyZ\r
        Content-Disposition: form-data; name="a"\r
        \r
        first\r
        --XyZ  \r
        Content-Disposition: form-data; name="f"; filename="é.png"\r
        Content-Type: image/png\r
        \r
        \r\n--XyNot the end\r\n-\r
        --XyZ--\r
        epilogue
        """.utf8)

    @Test("parts, headers (UTF-8 values), bodies holding near-delimiters, preamble and epilogue; the same at every cut")
    func readsParts() throws {
        let whole = try Self.read(Self.form)
        #expect(whole.finished)
        #expect(
            whole.parts == [
                Part(headers: ["Content-Disposition=form-data; name=\"a\""], body: Array("first".utf8)),
                Part(
                    headers: [
                        "Content-Disposition=form-data; name=\"f\"; filename=\"é.png\"", "Content-Type=image/png",
                    ],
                    body: Array("\r\n--XyNot the end\r\n-".utf8)),
            ])
        for piece in 1...40 {
            let cut = try Self.read(Self.form, piece: piece)
            #expect(cut.parts == whole.parts, "cut every \(piece) bytes")
            #expect(cut.finished)
        }
    }

    @Test(
        "a non-ASCII byte in a header name (it crashed multipart-kit's parser, found by make fuzz) is refused as malformed"
    )
    func nonASCIIHeaderName() throws {
        let body =
            Array("--XyZ\r\nContent-Disposition: form-data; n".utf8) + [0xCE]
            + Array("me=\"a\"\r\nC\u{91}nt: x\r\n\r\nv\r\n--XyZ--\r\n".utf8)
        #expect(throws: MultipartReader.Malformed.self) { try Self.read(body) }
        let crashing = try [UInt8](
            Data(
                contentsOf: URL(
                    fileURLWithPath: TestServer.repositoryRoot
                        + "/Fuzz/Corpus/FuzzUploads/regression-non-ascii-header-name")))
        #expect(throws: MultipartReader.Malformed.self) { try Self.read(crashing, boundary: "fuzzboundary") }
    }

    @Test(
        "headers without a colon or a name, garbage after a delimiter, and endless headers are malformed; a body cut short never completes its part"
    )
    func refusals() throws {
        for bad in [
            "--XyZ\r\nno colon here\r\n\r\nv\r\n--XyZ--", "--XyZ\r\n: no name\r\n\r\nv\r\n--XyZ--",
            "--XyZ junk\r\n\r\nv\r\n--XyZ--",
            "--XyZ\r\n" + String(repeating: "X-Long: " + String(repeating: "a", count: 1_000) + "\r\n", count: 20),
        ] {
            #expect(throws: MultipartReader.Malformed.self, "\(bad.prefix(30))") { try Self.read(Array(bad.utf8)) }
        }
        let cutShort = try Self.read(Array("--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nno end".utf8))
        #expect(cutShort.parts.isEmpty)
        #expect(!cutShort.finished)
        let wrongBoundary = try Self.read(Array("--Other\r\n\r\nv\r\n--Other--\r\n".utf8))
        #expect(wrongBoundary.parts.isEmpty && !wrongBoundary.finished)
    }
}
