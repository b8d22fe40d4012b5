import Foundation
import ParleyCore
import Testing

@testable import ParleyProviders

/// Tools in each vendor's request body, as received by a real mock upstream: the offered tools, an assistant turn that
/// asked for calls, and the turn carrying their results back; and a request without tools, byte for byte as before.
@Suite struct ToolRequestTests {
    typealias Harness = ProviderHarness

    /// A schema with keywords Gemini refuses and a nullable type.
    static let addSchema =
        #"{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"number"},"#
        + #""b":{"type":["number","null"],"default":0}},"required":["a"],"additionalProperties":false}"#

    static let tools = [
        ToolDefinition(name: "add", description: "Adds two numbers", inputSchema: addSchema),
        ToolDefinition(name: "now", description: "The time", inputSchema: "not json"),
    ]

    /// A question, an answer that asked for two calls, and their results, one failed.
    static var request: CompletionRequest {
        var request = CompletionRequest(
            model: "mock-fast",
            turns: [
                ChatTurn(role: .system, content: "Be brief."),
                ChatTurn(role: .user, content: "What is 2 + 3, and the time?"),
                ChatTurn(
                    role: .assistant, content: "Let me see.",
                    toolCalls: [
                        ToolCall(id: "call_1", name: "add", arguments: #"{"a":2,"b":3}"#),
                        ToolCall(id: "call_2", name: "now", arguments: ""),
                    ]),
                ChatTurn(
                    role: .user, content: "",
                    toolResults: [
                        ToolResult(callID: "call_1", name: "add", content: "5", isError: false),
                        ToolResult(callID: "call_2", name: "now", content: "clock broken", isError: true),
                    ]),
            ])
        request.tools = tools
        return request
    }

    /// `text` parsed, to compare structurally.
    static func object(_ text: String) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary)
    }

    /// The body of the last request the mock received from a provider of `kind` sent `request`.
    static func sentBody(_ kind: ProviderKind, _ request: CompletionRequest = request) async throws -> NSDictionary {
        var body: NSDictionary = [:]
        try await withMock { mock in
            _ = await Harness.collect(Harness.provider(kind, mock: mock), request)
            body = try await Harness.lastRequest(mock)
        }
        return body
    }

    /// The body a provider of `kind` would send for `request`, as text.
    static func bodyText(_ kind: ProviderKind, _ request: CompletionRequest) -> String {
        let connection = ProviderConnection(name: "test", baseURL: "http://127.0.0.1:9", apiKey: nil, client: .shared)
        let upstream =
            switch kind {
            case .openai: OpenAICompatibleProvider(connection: connection).upstreamRequest(for: request)
            case .anthropic: AnthropicProvider(connection: connection).upstreamRequest(for: request)
            case .gemini: GeminiProvider(connection: connection).upstreamRequest(for: request)
            }
        return String(decoding: upstream.body, as: UTF8.self)
    }

    @Test func openAISendsFunctionToolsToolCallsAndAToolMessagePerResult() async throws {
        let body = try await Self.sentBody(.openai)
        let expectedMessages: NSArray = [
            ["role": "system", "content": "Be brief."],
            ["role": "user", "content": "What is 2 + 3, and the time?"],
            [
                "role": "assistant", "content": "Let me see.",
                "tool_calls": [
                    [
                        "id": "call_1", "type": "function",
                        "function": ["name": "add", "arguments": #"{"a":2,"b":3}"#],
                    ],
                    ["id": "call_2", "type": "function", "function": ["name": "now", "arguments": ""]],
                ],
            ],
            ["role": "tool", "tool_call_id": "call_1", "content": "5"],
            ["role": "tool", "tool_call_id": "call_2", "content": "Error: clock broken"],
        ]
        #expect(body["messages"] as? NSArray == expectedMessages)
        let expectedTools: NSArray = [
            [
                "type": "function",
                "function": [
                    "name": "add", "description": "Adds two numbers", "parameters": try Self.object(Self.addSchema),
                ],
            ],
            [
                "type": "function",
                "function": [
                    "name": "now", "description": "The time",
                    "parameters": ["type": "object", "properties": NSDictionary()],
                ],
            ],
        ]
        #expect(body["tools"] as? NSArray == expectedTools)
    }

    @Test func openAISendsNullContentForACallWithoutText() throws {
        var request = Self.request
        request.turns[2].content = ""
        let body = try Self.object(Self.bodyText(.openai, request))
        let assistant = try #require((body["messages"] as? [NSDictionary])?[2])
        #expect(assistant["content"] is NSNull)
        #expect((assistant["tool_calls"] as? [Any])?.count == 2)
    }

    @Test func anthropicSendsToolUseBlocksAndToolResultBlocks() async throws {
        let body = try await Self.sentBody(.anthropic)
        let expectedMessages: NSArray = [
            ["role": "user", "content": "What is 2 + 3, and the time?"],
            [
                "role": "assistant",
                "content": [
                    ["type": "text", "text": "Let me see."],
                    ["type": "tool_use", "id": "call_1", "name": "add", "input": ["a": 2, "b": 3]],
                    ["type": "tool_use", "id": "call_2", "name": "now", "input": NSDictionary()],
                ],
            ],
            [
                "role": "user",
                "content": [
                    ["type": "tool_result", "tool_use_id": "call_1", "content": "5"],
                    ["type": "tool_result", "tool_use_id": "call_2", "content": "clock broken", "is_error": true],
                ],
            ],
        ]
        #expect(body["messages"] as? NSArray == expectedMessages)
        let expectedTools: NSArray = [
            ["name": "add", "description": "Adds two numbers", "input_schema": try Self.object(Self.addSchema)],
            [
                "name": "now", "description": "The time",
                "input_schema": ["type": "object", "properties": NSDictionary()],
            ],
        ]
        #expect(body["tools"] as? NSArray == expectedTools)
        #expect(body["system"] as? String == "Be brief.")
    }

    @Test func anthropicAsksNoThinkingBetweenCallsOfATurn() throws {
        var request = Self.request
        request.thinkingBudget = 2048
        let between = try Self.object(Self.bodyText(.anthropic, request))
        #expect(between["thinking"] == nil)
        #expect(between["max_tokens"] as? Int == AnthropicProvider.maxTokens)
        request.turns.append(ChatTurn(role: .assistant, content: "5, and no time."))
        request.turns.append(ChatTurn(role: .user, content: "Thanks"))
        let after = try Self.object(Self.bodyText(.anthropic, request))
        #expect(after["thinking"] as? NSDictionary == ["type": "enabled", "budget_tokens": 2048])
    }

    @Test func geminiSendsFunctionDeclarationsCallsAndResponses() async throws {
        let body = try await Self.sentBody(.gemini)
        let expectedContents: NSArray = [
            ["role": "user", "parts": [["text": "What is 2 + 3, and the time?"]]],
            [
                "role": "model",
                "parts": [
                    ["text": "Let me see."],
                    ["functionCall": ["name": "add", "args": ["a": 2, "b": 3]]],
                    ["functionCall": ["name": "now", "args": NSDictionary()]],
                ],
            ],
            [
                "role": "user",
                "parts": [
                    ["functionResponse": ["name": "add", "response": ["output": "5"]]],
                    ["functionResponse": ["name": "now", "response": ["error": "clock broken"]]],
                ],
            ],
        ]
        #expect(body["contents"] as? NSArray == expectedContents)
        // `$schema` and `additionalProperties` are cut, a nullable type is Gemini's `nullable`, and a tool without
        // parameters declares none.
        let expectedTools: NSArray = [
            [
                "functionDeclarations": [
                    [
                        "name": "add", "description": "Adds two numbers",
                        "parameters": [
                            "type": "object", "required": ["a"],
                            "properties": [
                                "a": ["type": "number"], "b": ["type": "number", "nullable": true, "default": 0],
                            ],
                        ],
                    ],
                    ["name": "now", "description": "The time"],
                ]
            ]
        ]
        #expect(body["tools"] as? NSArray == expectedTools)
    }

    @Test func geminiSchemasAreCutInsideItemsAndAnyOf() throws {
        let schema =
            #"{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","const":"x","#
            + #""additionalProperties":false}},"when":{"anyOf":[{"type":"string","format":"date-time","$comment":"c"},"#
            + #"{"type":"integer","exclusiveMinimum":0}]}},"$defs":{"a":{}}}"#
        let parameters = try #require(GeminiSchema.parameters(from: schema))
        let expected: NSDictionary = [
            "type": "object",
            "properties": [
                "tags": ["type": "array", "items": ["type": "string"]],
                "when": ["anyOf": [["type": "string", "format": "date-time"], ["type": "integer"]]],
            ],
        ]
        #expect(try Self.object(parameters) == expected)
        #expect(GeminiSchema.parameters(from: #"{"type":"object"}"#) == nil)
        #expect(GeminiSchema.parameters(from: "[1]") == nil)
    }

    @Test func aHistoryWithCallsButNoToolOfferedDeclaresItsToolsAndForbidsCalls() throws {
        var request = Self.request
        request.tools = []
        let openAI = try Self.object(Self.bodyText(.openai, request))
        #expect(openAI["tool_choice"] as? String == "none")
        let openAINames = (openAI["tools"] as? [NSDictionary])?.map { ($0["function"] as? NSDictionary)?["name"] }
        #expect(openAINames as? [String] == ["add", "now"])
        let anthropic = try Self.object(Self.bodyText(.anthropic, request))
        #expect(anthropic["tool_choice"] as? NSDictionary == ["type": "none"])
        #expect((anthropic["tools"] as? [NSDictionary])?.map { $0["name"] } as? [String] == ["add", "now"])
        let gemini = try Self.object(Self.bodyText(.gemini, request))
        #expect(gemini["toolConfig"] as? NSDictionary == ["functionCallingConfig": ["mode": "NONE"]])
        let declarations = (gemini["tools"] as? [NSDictionary])?.first?["functionDeclarations"] as? [NSDictionary]
        #expect(declarations == [["name": "add", "description": ""], ["name": "now", "description": ""]])
    }

    /// A request with every field but tools: a system prompt, history, limits, stops and sampling.
    static var plainRequest: CompletionRequest {
        var request = Harness.request(model: "m")
        request.maxTokens = 100
        request.stop = ["END"]
        request.temperature = 0.5
        request.thinkingBudget = 1024
        return request
    }

    @Test(
        "a request without tools is byte for byte what it was before tools",
        arguments: [
            (
                ProviderKind.openai,
                #"{"model":"m","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"earlier question"},"#
                    + #"{"role":"assistant","content":"earlier answer"},{"role":"user","content":"Say hello to the mock upstream"}],"#
                    + #""max_tokens":100,"stop":["END"],"temperature":0.5,"stream":true,"stream_options":{"include_usage":true}}"#
            ),
            (
                ProviderKind.anthropic,
                #"{"model":"m","max_tokens":1124,"thinking":{"type":"enabled","budget_tokens":1024},"stop_sequences":["END"],"#
                    + #""temperature":0.5,"system":"Be brief.","messages":[{"role":"user","content":"earlier question"},"#
                    + #"{"role":"assistant","content":"earlier answer"},{"role":"user","content":"Say hello to the mock upstream"}],"#
                    + #""stream":true}"#
            ),
            (
                ProviderKind.gemini,
                #"{"contents":[{"role":"user","parts":[{"text":"earlier question"}]},{"role":"model","parts":[{"text":"earlier answer"}]},"#
                    + #"{"role":"user","parts":[{"text":"Say hello to the mock upstream"}]}],"systemInstruction":{"parts":[{"text":"Be brief."}]},"#
                    + #""generationConfig":{"maxOutputTokens":100,"stopSequences":["END"],"temperature":0.5,"#
                    + #""thinkingConfig":{"includeThoughts":true,"thinkingBudget":1024}}}"#
            ),
        ])
    func plainBodyIsUnchanged(kind: ProviderKind, expected: String) {
        #expect(Self.bodyText(kind, Self.plainRequest) == expected)
    }
}
