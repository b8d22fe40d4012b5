import Foundation
import ParleyCore
import ParleyJSON
import Testing

@testable import ParleyProviders

/// The hand-written chunk reader against Foundation's JSONDecoder: the same answers for valid chunks, a refusal for
/// everything JSONDecoder refuses.
@Suite struct ChatCompletionChunkTests {
    /// What JSONDecoder makes of the same fields (the shape the reader replaced).
    private struct Reference: Decodable {
        struct Choice: Decodable {
            struct Delta: Decodable {
                struct ToolCall: Decodable {
                    struct Function: Decodable {
                        var name: String?
                        var arguments: String?
                    }
                    var index: Int?
                    var id: String?
                    var function: Function?
                }
                var content: String?
                var tool_calls: [ToolCall]?
            }
            var delta: Delta?
            var finish_reason: String?
        }
        struct TokenUsage: Decodable {
            struct Details: Decodable { var cached_tokens: Int? }
            var prompt_tokens: Int?
            var completion_tokens: Int?
            var prompt_tokens_details: Details?
        }
        var choices: [Choice]?
        var usage: TokenUsage?

        var chunk: (choices: [ChatCompletionChunk.Choice]?, usage: ChatCompletionChunk.TokenUsage?) {
            (
                choices?.map { choice in
                    ChatCompletionChunk.Choice(
                        content: choice.delta?.content, finishReason: choice.finish_reason,
                        toolCalls: (choice.delta?.tool_calls ?? []).map {
                            ChatCompletionChunk.ToolCallPiece(
                                index: $0.index, id: $0.id, name: $0.function?.name, arguments: $0.function?.arguments)
                        })
                },
                usage.map {
                    ChatCompletionChunk.TokenUsage(
                        promptTokens: $0.prompt_tokens, completionTokens: $0.completion_tokens,
                        cachedTokens: $0.prompt_tokens_details?.cached_tokens)
                }
            )
        }
    }

    static let valid = [
        #"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#,
        #"{"choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}"#,
        #"{"choices":[{"delta":{"content":"quote \" backslash \\ slash \/ tab \t newline \n"}}]}"#,
        #"{"choices":[{"delta":{"content":"caf\u00e9 \ud83d\ude00 \u4e2d 日本 😀"}}]}"#,
        #"{"choices":[{"delta":{},"finish_reason":"stop"}],"usage":null}"#,
        #"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":340,"total_tokens":352,"prompt_tokens_details":{"cached_tokens":0}}}"#,
        #"{"usage":{"prompt_tokens":2006,"completion_tokens":300,"prompt_tokens_details":{"cached_tokens":1920,"audio_tokens":0}}}"#,
        #"{"usage":{"prompt_tokens":5,"completion_tokens":1,"prompt_tokens_details":null}}"#,
        #"{"choices":[{"delta":null,"finish_reason":"length"}]}"#,
        #"{"choices":null}"#,
        #"  {  "choices" : [ { "delta" : { "content" : "spaced" } , "logprobs" : null } ] }  "#,
        #"{"choices":[{"delta":{"content":null,"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":[1,2.5e3,true,false,null]}"}}]}}]}"#,
        #"{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}]}"#,
        #"{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"call_1","type":"function","function":{"name":"add","arguments":""}},{"index":2,"function":{"arguments":"{\"b"}}]}}]}"#,
        #"{"choices":[{"delta":{"tool_calls":null}}]}"#,
        #"{"usage":{"prompt_tokens":1.0e2,"completion_tokens":null}}"#,
        #"{}"#,
        // Skipped fields of every number shape, and skipped strings with escapes.
        #"{"created":-0.5e+10,"a":0,"b":[1E-3,-12,0.25,10e2],"choices":[]}"#,
        #"{"id":"a\"b\\c\u00e9 \ud83d\ude00","system_fingerprint":"","choices":[{"delta":{"content":"x"}}]}"#,
        // Keys are matched whole, escapes resolved: near misses are skipped, escaped spellings are read.
        #"{"ch\u006fices":[{"d\u0065lta":{"c\u006fntent":"escaped keys"}}],"\u0075sage":{"prompt_tokens":4}}"#,
        #"{"choice":[1],"choicesX":{},"":2,"c":3,"choices\u0073":[],"choices":[{"delta":{"contents":"no","conten":"no","content":"yes"}}]}"#,
    ]

    static let invalid = [
        "", "null", "[]", #"{"choices":[{"delta":{"content":"unterminated}}]}"#,
        #"{"choices":[{"delta":{"content":5}}]}"#,
        #"{"choices":{"delta":{}}}"#, #"{"usage":{"prompt_tokens":"12"}}"#, #"{"usage":{"prompt_tokens":1.5}}"#,
        #"{"choices":[{"delta":{"content":"bad \x escape"}}]}"#, #"{"choices":[{"delta":{"content":"\u12"}}]}"#,
        #"{"choices":[{"delta":{"content":"a"}}]} trailing"#, #"{"choices":[{"delta":{"content":"a"}},]}"#,
        "{\"choices\":[{\"delta\":{\"content\":\"raw \n newline\"}}]}", #"{"a":tru}"#, #"{"a":01x}"#, #"{"a" "b"}"#,
        #"{"choices":[{"finish_reason":7}]}"#, #"{"choices":[{"delta":{"tool_calls":[{"index":"0"}]}}]}"#,
        #"{"choices":[{"delta":{"tool_calls":{}}}]}"#, #"{"usage":{"prompt_tokens_details":{"cached_tokens":"9"}}}"#,
        #"{"choices":[{"delta":{"content":"\ud83d"}}]}"#,
        // Malformed skipped numbers and strings.
        #"{"created":01}"#, #"{"created":-}"#, #"{"created":1.}"#, #"{"created":1e}"#, #"{"created":.5}"#,
        #"{"created":+1}"#,
        #"{"created":nan}"#, #"{"created":inf}"#, #"{"created":Infinity}"#, #"{"created":1.5.2}"#,
        #"{"id":"bad \q escape"}"#,
        #"{"id":"\u12"}"#, "{\"id\":\"raw \t tab\"}", #"{"id":"unterminated}"#,
        // Malformed keys.
        #"{"bad\q":1}"#, #"{"ch\u006fices":{}}"#, #"{"unterminated:1}"#, #"{choices:[]}"#,
    ]

    @Test(arguments: valid)
    func readsWhatJSONDecoderReads(json: String) throws {
        let reference = try JSONDecoder().decode(Reference.self, from: Data(json.utf8)).chunk
        let chunk = try ChatCompletionChunk(json: json)
        #expect(chunk.choices == reference.choices)
        #expect(chunk.usage == reference.usage)
        #expect(!chunk.hasError)
    }

    @Test(arguments: invalid)
    func refusesWhatIsNotAChunk(json: String) {
        #expect(throws: (any Error).self) { try ChatCompletionChunk(json: json) }
    }

    @Test(
        "nesting is read to 512 levels; a hostile line of deeper brackets is refused instead of overflowing the stack")
    func nestingIsBounded() throws {
        let nested = { (depth: Int) in
            #"{"choices":[],"x":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
        }
        // The chunk object itself is the first level.
        #expect(try ChatCompletionChunk(json: nested(JSONCursor.maximumDepth - 1)).choices == [])
        #expect(throws: JSONCursor.Invalid.self) { try ChatCompletionChunk(json: nested(JSONCursor.maximumDepth)) }
        #expect(throws: JSONCursor.Invalid.self) { try ChatCompletionChunk(json: nested(1_000_000)) }
        let objects =
            #"{"x":"# + String(repeating: #"{"a":"#, count: 1_000_000) + "1" + String(repeating: "}", count: 1_000_001)
        #expect(throws: JSONCursor.Invalid.self) { try ChatCompletionChunk(json: objects) }
    }

    @Test func anErrorObjectIsFlagged() throws {
        #expect(try ChatCompletionChunk(json: #"{"error":{"message":"overloaded","type":"server_error"}}"#).hasError)
        #expect(try !ChatCompletionChunk(json: #"{"error":null,"choices":[]}"#).hasError)
    }
}
