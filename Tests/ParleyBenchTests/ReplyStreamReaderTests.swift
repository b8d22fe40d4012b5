import NIOCore
import Testing

@testable import ParleyBench

/// The load generator's reading of a reply's event stream, piece by piece.
@Suite struct ReplyStreamReaderTests {
    static let stream = """
        id:7.1\nevent:start\ndata:{"message_id":7}\n\nid:7.2\nevent:token\ndata:{"text":"Hi"}\n\n\
        id:7.3\nevent:error\ndata:{"message_id":7,"code":"upstream_timeout","message":"slow"}\n\n\
        id:7.FXsj\nevent:done\ndata:{"message_id":7,"status":"error","usage":{"completion_tokens":1}}\n\n
        """

    /// Reads `stream` in pieces of `size` bytes.
    static func read(inPiecesOf size: Int) -> ReplyStreamReader {
        var reader = ReplyStreamReader()
        let bytes = Array(stream.utf8)
        for start in stride(from: 0, to: bytes.count, by: size) {
            reader.read(ByteBuffer(bytes: bytes[start..<min(start + size, bytes.count)]))
        }
        return reader
    }

    @Test(arguments: [1, 3, 7, 11, 64, 1000])
    func findsEveryEventWhereverTheReadsSplitIt(size: Int) {
        let reader = Self.read(inPiecesOf: size)
        #expect(reader.sawToken)
        let error = String(decoding: reader.error, as: UTF8.self)
        #expect(error.hasPrefix("event:error\ndata:{\"message_id\":7,\"code\":\"upstream_timeout\""))
        #expect(
            String(decoding: reader.done, as: UTF8.self)
                == #"event:done\#ndata:{"message_id":7,"status":"error","usage":{"completion_tokens":1}}\#n\#n"#)
    }

    @Test func aStreamWithoutTheEventsFindsNone() {
        var reader = ReplyStreamReader()
        reader.read(ByteBuffer(string: "event:start\ndata:{\"text\":\"event:tok"))
        reader.read(ByteBuffer(string: "\"}\n\n: heartbeat\n\n"))
        #expect(!reader.sawToken)
        #expect(reader.error.isEmpty)
        #expect(reader.done.isEmpty)
    }
}
