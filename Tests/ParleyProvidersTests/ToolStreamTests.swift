import Foundation
import ParleyCore
import Testing

@testable import MockUpstream
@testable import ParleyProviders

/// Tool calls read from each wire format against the mock upstream's `mock-tools` (OpenAI's arguments in pieces over
/// several chunks, Anthropic's `input_json_delta` pieces, Gemini's whole `functionCall` parts), results carried back to
/// it, and the forms other servers use.
@Suite struct ToolStreamTests {
    typealias Harness = ProviderHarness

    static let tools = [
        ToolDefinition(name: "lookup", description: "Finds a record", inputSchema: #"{"type":"object"}"#),
        ToolDefinition(name: "add", description: "Adds", inputSchema: #"{"type":"object"}"#),
    ]

    /// A `mock-tools` request offering `tools`, whose question is `question`, after `turns`.
    static func request(_ question: String, then turns: [ChatTurn] = []) -> CompletionRequest {
        var request = CompletionRequest(model: "mock-tools", turns: [ChatTurn(role: .user, content: question)] + turns)
        request.tools = tools
        return request
    }

    /// The signature the mock gives Gemini's first call of `add` (other vendors leave it out).
    static let signature = GeminiWire.signature(of: "add")

    /// The tool calls among `chunks`.
    static func calls(_ chunks: [CompletionChunk]) -> [ToolCall] {
        chunks.compactMap { if case .toolCall(let call) = $0 { call } else { nil } }
    }

    /// The text among `chunks`, joined.
    static func text(_ chunks: [CompletionChunk]) -> String {
        chunks.compactMap { if case .text(let text) = $0 { text } else { nil } }.joined()
    }

    /// JSON text parsed, to compare arguments whatever their layout.
    static func object(_ text: String) -> NSDictionary? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? NSDictionary
    }

    @Test(
        "parallel calls with arguments in pieces come whole, in order, in each vendor's form",
        arguments: ProviderKind.allCases)
    func parallelCalls(kind: ProviderKind) async throws {
        let lookup = #"{"id":"x-1","deep":{"list":[1,2.5,true,null],"text":"a \"quoted\" é"}}"#
        try await withMock { mock in
            let (chunks, error) = await Harness.collect(
                Harness.provider(kind, mock: mock),
                Self.request("Please\ncall lookup \(lookup)\ncall add {\"a\":2,\"b\":3}"))
            #expect(error == nil)
            let calls = Self.calls(chunks)
            #expect(calls.map(\.name) == ["lookup", "add"])
            #expect(calls.map { Self.object($0.arguments) } == [Self.object(lookup), ["a": 2, "b": 3]])
            if kind == .gemini {
                #expect(calls.allSatisfy { $0.id.hasPrefix("call_") } && Set(calls.map(\.id)).count == 2)
            } else {
                // The vendor's ids, and its arguments exactly as the model wrote them.
                #expect(calls.map(\.id) == ["call_0_0", "call_0_1"])
                #expect(calls.map(\.arguments) == [lookup, #"{"a":2,"b":3}"#])
            }
            #expect(Self.text(chunks).isEmpty)
            #expect(!chunks.contains(.cutAtLimit))
            #expect(chunks.contains { if case .usage = $0 { true } else { false } })
        }
    }

    @Test("without a call line the model calls the offered tool ending in add", arguments: ProviderKind.allCases)
    func defaultCall(kind: ProviderKind) async throws {
        try await withMock { mock in
            let (chunks, error) = await Harness.collect(
                Harness.provider(kind, mock: mock), Self.request("What is 2+3?"))
            #expect(error == nil)
            let calls = Self.calls(chunks)
            #expect(calls.map(\.name) == ["add"])
            #expect(calls.map { Self.object($0.arguments) } == [["a": 2, "b": 3]])
        }
    }

    @Test("results carried back reach the model, which answers from them", arguments: ProviderKind.allCases)
    func resultsReachTheModel(kind: ProviderKind) async throws {
        let asked = ChatTurn(
            role: .assistant, content: "",
            toolCalls: [
                ToolCall(id: "call_0_0", name: "add", arguments: #"{"a":2,"b":3}"#, signature: Self.signature),
                ToolCall(id: "call_0_1", name: "lookup", arguments: "{}"),
            ])
        let results = ChatTurn(
            role: .user, content: "",
            toolResults: [
                ToolResult(callID: "call_0_0", name: "add", content: "5", isError: false),
                ToolResult(callID: "call_0_1", name: "lookup", content: "no such record", isError: true),
            ])
        try await withMock { mock in
            let (chunks, error) = await Harness.collect(
                Harness.provider(kind, mock: mock), Self.request("What is 2+3?", then: [asked, results]))
            #expect(error == nil)
            #expect(Self.calls(chunks).isEmpty)
            #expect(Self.text(chunks) == "The tool said: 5; Error: no such record")
            let stats = try await mock.stats()
            #expect(stats["last_tool_results"] as? [String] == ["5", "Error: no such record"])
        }
    }

    @Test("Gemini's signature of a step's first call comes with it and goes back with it; without it, Gemini refuses")
    func geminiSignaturesGoBack() async throws {
        try await withMock { mock in
            let provider = Harness.provider(.gemini, mock: mock)
            let (chunks, _) = await Harness.collect(provider, Self.request("call add {}\ncall lookup {}"))
            let calls = Self.calls(chunks)
            #expect(calls.map(\.signature) == [Self.signature, nil])
            let results = ChatTurn(
                role: .user, content: "",
                toolResults: calls.map { ToolResult(callID: $0.id, name: $0.name, content: "5", isError: false) })
            let (answer, error) = await Harness.collect(
                provider,
                Self.request("call add {}", then: [ChatTurn(role: .assistant, content: "", toolCalls: calls), results]))
            #expect(error == nil && Self.text(answer) == "The tool said: 5; 5")
            let unsigned = calls.map { ToolCall(id: $0.id, name: $0.name, arguments: $0.arguments) }
            let (_, refused) = await Harness.collect(
                provider,
                Self.request(
                    "call add {}", then: [ChatTurn(role: .assistant, content: "", toolCalls: unsigned), results]))
            #expect(refused != nil)
        }
    }

    @Test("always call asks again after results, with ids of the new round", arguments: ProviderKind.allCases)
    func alwaysCall(kind: ProviderKind) async throws {
        let asked = ChatTurn(
            role: .assistant, content: "",
            toolCalls: [ToolCall(id: "call_0_0", name: "add", arguments: "{}", signature: Self.signature)])
        let results = ChatTurn(
            role: .user, content: "",
            toolResults: [ToolResult(callID: "call_0_0", name: "add", content: "5", isError: false)])
        try await withMock { mock in
            let (chunks, error) = await Harness.collect(
                Harness.provider(kind, mock: mock), Self.request("always call\ncall add {}", then: [asked, results]))
            #expect(error == nil)
            let calls = Self.calls(chunks)
            #expect(calls.map(\.name) == ["add"])
            if kind != .gemini { #expect(calls.map(\.id) == ["call_1_0"]) }
        }
    }

    @Test func theMockStreamsOpenAIArgumentsOverSeveralChunksAndFinishesWithToolCalls() async throws {
        let body =
            #"{"model":"mock-tools","stream":true,"tools":[{"type":"function","function":{"name":"add"}}],"#
            + #""messages":[{"role":"user","content":"sum"}]}"#
        try await withMock { mock in
            let reply = try await mock.post("/v1/chat/completions", body)
            let choices = try events(reply.text).dropLast().map { try json($0.data)["choices"] as? [[String: Any]] }
            let deltas = choices.compactMap { $0?.first?["delta"] as? [String: Any] }
            let pieces = deltas.compactMap { ($0["tool_calls"] as? [[String: Any]])?.first }
            #expect(pieces.count == 5)
            #expect(pieces.first?["id"] as? String == "call_0_0")
            let arguments = pieces.compactMap { ($0["function"] as? [String: Any])?["arguments"] as? String }
            #expect(arguments == ["", #"{"a""#, #":2,""#, #"b":3"#, "}"])
            #expect(choices.compactMap { $0?.first?["finish_reason"] as? String } == ["tool_calls"])
        }
    }

    @Test func theMockStreamsAnthropicInputInJSONDeltasAfterClosingTheTextBlock() async throws {
        let body =
            #"{"model":"mock-tools","stream":true,"max_tokens":10,"tools":[{"name":"add"}],"#
            + #""messages":[{"role":"user","content":"sum"}]}"#
        try await withMock { mock in
            let reply = try await mock.post("/v1/messages", body)
            let stream = events(reply.text)
            #expect(
                stream.map { $0.event ?? "" } == [
                    "message_start", "content_block_start", "ping", "content_block_stop", "content_block_start",
                    "content_block_delta", "content_block_delta", "content_block_delta", "content_block_delta",
                    "content_block_delta", "content_block_stop", "message_delta", "message_stop",
                ])
            let payloads = try stream.map { try json($0.data) }
            let block = try #require(payloads[4]["content_block"] as? [String: Any])
            #expect(block["type"] as? String == "tool_use" && block["name"] as? String == "add")
            let input = payloads.compactMap { ($0["delta"] as? [String: Any])?["partial_json"] as? String }
            #expect(input.joined() == #"{"a":2,"b":3}"#)
            #expect((payloads[11]["delta"] as? [String: Any])?["stop_reason"] as? String == "tool_use")
        }
    }

    @Test func openAICallsWithoutIndexesAndEndingAtDoneAreGathered() throws {
        var decoder = OpenAIStreamDecoder()
        var chunks: [CompletionChunk] = []
        for data in [
            #"{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"one","arguments":"{\"x\""}}]}}]}"#,
            #"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":":1}"}}]}}]}"#,
            #"{"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"two"}}]}}]}"#,
            "[DONE]",
        ] {
            try decoder.decode(SSEMessage(data: data), into: &chunks)
        }
        #expect(
            chunks == [
                .toolCall(ToolCall(id: "a", name: "one", arguments: #"{"x":1}"#)),
                .toolCall(ToolCall(id: "b", name: "two", arguments: "{}")),
            ])
    }

    @Test func openAIToolCallsFinishIsNotACutAndInterleavedIndexesKeepTheirOrder() throws {
        var decoder = OpenAIStreamDecoder()
        var chunks: [CompletionChunk] = []
        for data in [
            #"{"choices":[{"delta":{"content":"Checking."}}]}"#,
            #"{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"two","arguments":"{"}}]}}]}"#,
            #"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"one","arguments":"{}"}}]}}]}"#,
            #"{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"}"}}]}}]}"#,
            #"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
        ] {
            try decoder.decode(SSEMessage(data: data), into: &chunks)
        }
        #expect(
            chunks == [
                .text("Checking."), .toolCall(ToolCall(id: "a", name: "one", arguments: "{}")),
                .toolCall(ToolCall(id: "b", name: "two", arguments: "{}")),
            ])
        #expect(decoder.hasEnded)
    }

    @Test func anthropicToolUseAfterTextEndsAtItsBlockStopWithoutCut() throws {
        let (chunks, finish) = try AnthropicProviderTests.decode([
            ("message_start", #"{"type":"message_start","message":{"usage":{"input_tokens":3}}}"#),
            (
                "content_block_start",
                #"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#
            ),
            (
                "content_block_delta",
                #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"On it."}}"#
            ),
            ("content_block_stop", #"{"type":"content_block_stop","index":0}"#),
            (
                "content_block_start",
                #"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"now","input":{}}}"#
            ),
            ("content_block_stop", #"{"type":"content_block_stop","index":1}"#),
            (
                "message_delta",
                #"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}"#
            ),
            ("message_stop", #"{"type":"message_stop"}"#),
        ])
        #expect(
            chunks == [
                .text("On it."), .toolCall(ToolCall(id: "toolu_1", name: "now", arguments: "{}")),
                .usage(promptTokens: 3, completionTokens: 9),
            ])
        #expect(finish == nil)
    }

    @Test func geminiKeepsItsOwnCallIdAndAMalformedCallFails() throws {
        var decoder = GeminiStreamDecoder()
        var chunks: [CompletionChunk] = []
        try decoder.decode(
            SSEMessage(
                data:
                    #"{"candidates":[{"content":{"parts":[{"functionCall":{"id":"g1","name":"add","args":{"b":3,"a":2}}}]},"finishReason":"STOP"}]}"#
            ), into: &chunks)
        #expect(chunks == [.toolCall(ToolCall(id: "g1", name: "add", arguments: #"{"a":2,"b":3}"#))])
        var malformed = GeminiStreamDecoder()
        try malformed.decode(
            SSEMessage(data: #"{"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL"}]}"#), into: &chunks
        )
        do throws(ProviderError) {
            try malformed.finish()
            Issue.record("a malformed call finished the reply")
        } catch {
            #expect(
                error
                    == .malformedResponse(
                        detail: "the model wrote a tool call that cannot be made (MALFORMED_FUNCTION_CALL)"))
        }
    }
}
