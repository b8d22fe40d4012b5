import Testing

@testable import MockUpstream

/// How `mock-tools` decides between calling and answering, whatever the wire format.
@Suite struct MockToolReplyTests {
    static let fastReply = MockReply.chunks(model: "mock-fast", tokens: 5)

    @Test func callLinesAskForThoseCallsInOrder() {
        let reply = MockToolReply(
            to: ToolTurns(offered: ["add"], question: "Hi\ncall lookup {\"id\":1}\n  call none_such \ncall add [1]"),
            tokens: 5)
        #expect(
            reply
                == MockToolReply(
                    chunks: [],
                    calls: [
                        .init(id: "call_0_0", name: "lookup", arguments: #"{"id":1}"#),
                        .init(id: "call_0_1", name: "none_such", arguments: "{}"),
                        .init(id: "call_0_2", name: "add", arguments: "{}"),
                    ]))
    }

    @Test func callNoneOrNoToolAnswersAsMockFast() {
        #expect(
            MockToolReply(to: ToolTurns(offered: ["add"], question: "call none"), tokens: 5).chunks == Self.fastReply)
        #expect(MockToolReply(to: ToolTurns(question: "What is 2+3?"), tokens: 5).chunks == Self.fastReply)
    }

    @Test func theOfferedToolEndingInAddIsCalledElseTheFirst() {
        let add = MockToolReply(to: ToolTurns(offered: ["lookup", "math_add", "add_more"], rounds: 2), tokens: 5)
        #expect(add.calls == [.init(id: "call_2_0", name: "math_add", arguments: #"{"a":2,"b":3}"#)])
        let first = MockToolReply(to: ToolTurns(offered: ["lookup", "now"]), tokens: 5)
        #expect(first.calls.map(\.name) == ["lookup"])
    }

    @Test func resultsAreQuotedUnlessTheMessageSaysAlwaysCall() {
        let turns = ToolTurns(offered: ["add"], results: ["5", "Error: down"], question: "call add {}", rounds: 1)
        let answer = MockToolReply(to: turns, tokens: 5)
        #expect(answer.calls.isEmpty)
        #expect(answer.chunks == ["The", " tool", " said:", " 5;", " Error:", " down"])
        var again = turns
        again.question = "always call\ncall add {}"
        #expect(MockToolReply(to: again, tokens: 5).calls == [.init(id: "call_1_0", name: "add", arguments: "{}")])
    }

    @Test func argumentsStreamInPiecesOfFourCharacters() {
        let call = MockToolReply.Call(id: "c", name: "add", arguments: #"{"a":2,"b":3}"#)
        #expect(call.argumentPieces == [#"{"a""#, #":2,""#, #"b":3"#, "}"])
        #expect(call.argumentPieces.joined() == call.arguments)
    }
}
