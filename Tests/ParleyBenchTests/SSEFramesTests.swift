import ParleyCore
import Testing

@testable import ParleyBench

/// The soak's reading of a reply's events over a dropped and a resumed connection.
@Suite struct SSEFramesTests {
    static let head = """
        retry: 1000\n: connected\n\nid:7.1\nevent:start\ndata:{"message_id":7,"model":"m"}\n\n\
        id:7.2\nevent:token\ndata:{"text":"Hel"}\n\n: heartbeat\n\n
        """
    static let resumed = """
        id:7.3\nevent:token\ndata:{"message_id":7,"text":"lo"}\n\nid:7.4\nevent:token\ndata:{"text":"!"}\n\n\
        id:7.FXsj\nevent:done\ndata:{"message_id":7,"status":"complete","html":"<p>Hello!</p>\\n"}\n\n
        """

    /// Reads `text` in pieces of `size` bytes.
    static func read(_ text: String, after: EventID? = nil, inPiecesOf size: Int) -> SSEFrames {
        var frames = SSEFrames(after: after)
        let bytes = Array(text.utf8)
        for start in stride(from: 0, to: bytes.count, by: size) {
            frames.feed(bytes[start..<min(start + size, bytes.count)])
        }
        return frames
    }

    @Test(
        "events without message_id belong to the reply named before them, on either connection",
        arguments: [1, 5, 1000])
    func attributesIdLessEvents(size: Int) {
        let dropped = Self.read(Self.head, inPiecesOf: size)
        #expect(dropped.reply == 7 && dropped.unattributed == 0)
        #expect(dropped.text == "Hel" && dropped.tokens == 1)
        #expect(dropped.lastID == EventID(messageID: 7, sequence: 2))
        let resumed = Self.read(Self.resumed, after: dropped.lastID, inPiecesOf: size)
        #expect(resumed.reply == 7 && resumed.unattributed == 0 && resumed.repeats == 0)
        #expect(dropped.text + resumed.text == "Hello!" && resumed.doneStatus == "complete")
    }

    @Test("a stream whose first event names no reply, or that repeats an event, is caught")
    func catchesUnnamedAndRepeatedEvents() {
        let unnamed = Self.read(#"id:7.4\#nevent:token\#ndata:{"text":"!"}\#n\#n"#, inPiecesOf: 1000)
        #expect(unnamed.unattributed == 1 && unnamed.reply == nil)
        // Decimal ids, as earlier versions sent them, order with the short ones.
        let repeated = Self.read(Self.resumed, after: EventID("70000003"), inPiecesOf: 1000)
        #expect(repeated.repeats == 1)
    }
}
