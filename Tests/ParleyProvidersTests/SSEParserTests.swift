import ParleyCore
import ParleyProviders
import Synchronization
import Testing

/// The incremental Server-Sent Events parser.
@Suite struct SSEParserTests {
    /// Feeds `text` in one piece.
    static func parse(_ text: String) -> [SSEMessage] {
        var parser = SSEParser()
        return parser.feed(Array(text.utf8))
    }

    /// Feeds `bytes` in pieces cut at `cuts` (sorted byte offsets).
    static func parse(_ bytes: [UInt8], cuts: [Int]) -> [SSEMessage] {
        var parser = SSEParser()
        var messages: [SSEMessage] = []
        var start = 0
        for cut in cuts + [bytes.count] {
            messages += parser.feed(bytes[start..<cut])
            start = cut
        }
        return messages
    }

    @Test func acceptsEveryLineEnding() {
        let expected = [SSEMessage(data: "one"), SSEMessage(data: "two"), SSEMessage(data: "three")]
        #expect(Self.parse("data: one\n\ndata: two\n\ndata: three\n\n") == expected)
        #expect(Self.parse("data: one\r\n\r\ndata: two\r\n\r\ndata: three\r\n\r\n") == expected)
        #expect(Self.parse("data: one\r\rdata: two\r\rdata: three\r\r") == expected)
        #expect(Self.parse("data: one\r\n\ndata: two\n\r\ndata: three\r\r\n") == expected)
    }

    @Test func crLFSplitAcrossFeedsIsOneLineEnd() {
        var parser = SSEParser()
        #expect(parser.feed(Array("data: a\r".utf8)).isEmpty)
        #expect(parser.feed(Array("\ndata: b\r".utf8)).isEmpty)
        #expect(parser.feed(Array("\n".utf8)).isEmpty)
        #expect(parser.feed(Array("\r".utf8)) == [SSEMessage(data: "a\nb")])
        #expect(parser.feed(Array("\n".utf8)).isEmpty)
        #expect(parser.feed(Array("data: c\n\n".utf8)) == [SSEMessage(data: "c")])
    }

    @Test func bytesWithoutContiguousStorageParseTheSame() {
        let stream = "event: delta\r\ndata: one\r\n\r\ndata: two\n\n"
        var parser = SSEParser()
        let pieces = [AnyCollection(Array(stream.utf8).prefix(17)), AnyCollection(Array(stream.utf8).dropFirst(17))]
        #expect(pieces[0].withContiguousStorageIfAvailable { _ in true } == nil)
        #expect(pieces.flatMap { parser.feed($0) } == Self.parse(stream))
        #expect(Self.parse(stream) == [SSEMessage(event: "delta", data: "one"), SSEMessage(data: "two")])
    }

    @Test func everySplitPointGivesTheSameMessages() {
        let stream =
            ": hello\r\nevent: delta\r\nid: 7\r\ndata: {\"t\":\"héllo 👋\"}\r\ndata: second\r\n\r\n"
            + "data:no space\rdata:  two spaces \r\r" + "event: done\ndata: [DONE]\n\n"
        let bytes = Array(stream.utf8)
        let whole = Self.parse(bytes, cuts: [])
        #expect(
            whole == [
                SSEMessage(event: "delta", data: "{\"t\":\"héllo 👋\"}\nsecond", id: "7"),
                SSEMessage(data: "no space\n two spaces "),
                SSEMessage(event: "done", data: "[DONE]"),
            ])
        for cut in 1..<bytes.count {
            #expect(Self.parse(bytes, cuts: [cut]) == whole, "split at \(cut)")
        }
        for first in stride(from: 1, to: bytes.count, by: 7) {
            for second in (first + 1)..<bytes.count {
                #expect(Self.parse(bytes, cuts: [first, second]) == whole, "split at \(first), \(second)")
            }
        }
        #expect(Self.parse(bytes, cuts: Array(1..<bytes.count)) == whole)
    }

    @Test func joinsMultiLineDataWithNewlines() {
        #expect(Self.parse("data: a\ndata: b\ndata:\ndata: c\n\n") == [SSEMessage(data: "a\nb\n\nc")])
    }

    @Test func ignoresCommentsAndUnknownFields() {
        #expect(Self.parse(": keep-alive\n\n").isEmpty)
        #expect(Self.parse(":\n: comment\ndata: x\nretry: 10\nfoo: bar\n: more\n\n") == [SSEMessage(data: "x")])
    }

    @Test func readsEventAndIDPerMessage() {
        let messages = Self.parse("event: add\nid: 42\ndata: one\n\ndata: two\n\nid:\ndata: three\n\n")
        #expect(
            messages == [
                SSEMessage(event: "add", data: "one", id: "42"), SSEMessage(data: "two"),
                SSEMessage(data: "three", id: ""),
            ])
        #expect(Self.parse("event: only\n\n").isEmpty)
    }

    @Test func removesOnlyOneLeadingSpaceAndNeverTrims() {
        #expect(Self.parse("data:  two spaces\n\n") == [SSEMessage(data: " two spaces")])
        #expect(Self.parse("data:tight\n\n") == [SSEMessage(data: "tight")])
        #expect(Self.parse("data: trailing  \n\n") == [SSEMessage(data: "trailing  ")])
        #expect(Self.parse("data: \t tab\n\n") == [SSEMessage(data: "\t tab")])
        #expect(Self.parse("data: a: b\n\n") == [SSEMessage(data: "a: b")])
        #expect(Self.parse("event:  spaced \ndata: x\n\n") == [SSEMessage(event: " spaced ", data: "x")])
    }

    @Test func fieldWithoutColonHasAnEmptyValue() {
        #expect(Self.parse("data\n\n") == [SSEMessage(data: "")])
        #expect(Self.parse("data\ndata\n\n") == [SSEMessage(data: "\n")])
        #expect(Self.parse("event: x\nevent\ndata: y\n\n") == [SSEMessage(data: "y")])
        #expect(Self.parse("datum\n\n").isEmpty)
    }

    @Test func multiByteCharactersSplitAcrossFeeds() {
        let text = "data: é中🚀\n\n"
        let bytes = Array(text.utf8)
        for cut in 7..<(bytes.count - 2) {
            #expect(Self.parse(bytes, cuts: [cut]) == [SSEMessage(data: "é中🚀")], "split at \(cut)")
        }
        #expect(Self.parse(bytes, cuts: Array(1..<bytes.count)) == [SSEMessage(data: "é中🚀")])
    }

    @Test func nothingIsEmittedWithoutABlankLine() {
        var parser = SSEParser()
        #expect(parser.feed(Array("data: pending\n".utf8)).isEmpty)
        #expect(parser.feed(Array("data: more".utf8)).isEmpty)
        #expect(parser.feed(Array("\n".utf8)).isEmpty)
        #expect(parser.feed(Array("\n".utf8)) == [SSEMessage(data: "pending\nmore")])
        #expect(Self.parse("data: end of stream").isEmpty)
        #expect(Self.parse("data: one line\n").isEmpty)
    }
}

/// The built-in demo model.
@Suite struct DemoProviderTests {
    @Test func tokensConcatenateToTheReplyAndUsageFollows() async throws {
        let chunks = Mutex<[CompletionChunk]>([])
        let question = "How does streaming work here?"
        let request = CompletionRequest(
            model: DemoProvider.modelID,
            turns: [
                ChatTurn(role: .system, content: "Be brief."),
                ChatTurn(role: .user, content: "earlier question"),
                ChatTurn(role: .assistant, content: "earlier answer"),
                ChatTurn(role: .user, content: question),
            ])
        try await DemoProvider(tokenDelay: .zero).streamCompletion(request) { chunk in
            chunks.withLock { $0.append(chunk) }
            return .zero
        }
        let received = chunks.withLock { $0 }
        var texts: [String] = []
        for chunk in received.dropLast() {
            guard case .text(let text) = chunk else {
                Issue.record("unexpected chunk before the end: \(chunk)")
                continue
            }
            texts.append(text)
        }
        let reply = DemoProvider.reply(to: question)
        #expect(texts.count > 50)
        #expect(texts.allSatisfy { !$0.isEmpty })
        #expect(texts.joined() == reply)
        #expect(reply.contains("You wrote 5 words."))
        let prompt = request.turns.reduce(0) { $0 + ContextWindow.estimatedTokens($1.content) }
        #expect(received.last == .usage(promptTokens: prompt, completionTokens: texts.count))
    }

    @Test func replyIsDeterministicAndCountsWords() {
        #expect(DemoProvider.reply(to: "one two") == DemoProvider.reply(to: "one  two"))
        #expect(DemoProvider.reply(to: "single").contains("You wrote 1 word."))
        #expect(DemoProvider.reply(to: "").contains("You wrote 0 words."))
        #expect(DemoProvider.reply(to: "a b c") != DemoProvider.reply(to: "a b"))
    }
}
