import AsyncHTTPClient
import Foundation
import Hummingbird
import ParleyCore
import ParleyJSON
import Testing

@testable import MockUpstream

/// End-to-end tests of the mock upstream over loopback HTTP.
@Suite struct MockUpstreamTests {
    static let tokens = 12
    static let prompt = "Say hello to the mock upstream"  // 30 characters: 7 prompt tokens
    static let openAIBody =
        #"{"model":"mock-fast","messages":[{"role":"user","content":"Say hello to the mock upstream"}],"stream":true,"stream_options":{"include_usage":true}}"#
    static let anthropicBody =
        #"{"model":"mock-fast","max_tokens":100,"messages":[{"role":"user","content":"Say hello to the mock upstream"}],"stream":true}"#
    static let geminiBody = #"{"contents":[{"role":"user","parts":[{"text":"Say hello to the mock upstream"}]}]}"#

    @Test func replyChunksConcatenateToTheText() {
        let chunks = MockReply.chunks(model: "mock-fast", tokens: 25)
        #expect(chunks.count == 25)
        #expect(chunks.joined() == MockReply.text(model: "mock-fast", tokens: 25))
        #expect(MockReply.text(model: "mock-fast", tokens: 1) == "Hello!")
        #expect(MockReply.text(model: "unknown-model", tokens: 25) == MockReply.text(model: "mock-fast", tokens: 25))
        let long = MockReply.chunks(model: "mock-long", tokens: 1)
        #expect(long.allSatisfy { (1...4).contains($0.count) })
        let document = long.joined()
        #expect(document.utf8.count > 15_000)
        for construct in ["\n## ", "|:--------|", "\n   - ", "\n> > ", "```swift\n", "\n\n\n", "](https://", "🚀", "中文"]
        {
            #expect(document.contains(construct), "missing \(construct)")
        }
    }

    @Test func openAIStreamConcatenatesToTheReply() async throws {
        try await withMock { mock in
            let reply = try await mock.post("/v1/chat/completions", Self.openAIBody)
            #expect(reply.status == 200)
            #expect(reply.headers["content-type"] == "text/event-stream")
            let data = events(reply.text).map(\.data)
            #expect(data.last == "[DONE]")
            let chunks = try data.dropLast().map(json)
            let choices = chunks.map { $0["choices"] as? [[String: Any]] ?? [] }
            let deltas = choices.compactMap { $0.first?["delta"] as? [String: Any] }
            #expect(deltas.first?["role"] as? String == "assistant")
            #expect(
                deltas.compactMap { $0["content"] as? String }.joined()
                    == MockReply.text(model: "mock-fast", tokens: Self.tokens))
            #expect(choices.compactMap { $0.first?["finish_reason"] as? String } == ["stop"])
            let usageChunk = try #require(chunks.last)
            #expect((usageChunk["choices"] as? [Any])?.isEmpty == true)
            let usage = try #require(usageChunk["usage"] as? [String: Int])
            #expect(usage == ["prompt_tokens": 7, "completion_tokens": Self.tokens, "total_tokens": 7 + Self.tokens])
        }
    }

    @Test func anthropicStreamConcatenatesToTheReply() async throws {
        try await withMock { mock in
            let reply = try await mock.post("/v1/messages", Self.anthropicBody, headers: ["x-api-key": "good-key"])
            #expect(reply.status == 200)
            let stream = events(reply.text)
            let names = stream.map { $0.event ?? "" }
            #expect(Array(names.prefix(3)) == ["message_start", "content_block_start", "ping"])
            #expect(Array(names.suffix(3)) == ["content_block_stop", "message_delta", "message_stop"])
            let payloads = try stream.map { try json($0.data) }
            #expect(payloads.map { $0["type"] as? String ?? "" } == names)
            let texts = payloads.compactMap { ($0["delta"] as? [String: Any])?["text"] as? String }
            #expect(texts.joined() == MockReply.text(model: "mock-fast", tokens: Self.tokens))
            let start = try #require(payloads.first?["message"] as? [String: Any])
            #expect((start["usage"] as? [String: Int])?["input_tokens"] == 7)
            let delta = payloads[payloads.count - 2]
            #expect((delta["usage"] as? [String: Int])?["output_tokens"] == Self.tokens)
            #expect((delta["delta"] as? [String: Any])?["stop_reason"] as? String == "end_turn")
        }
    }

    @Test func geminiStreamConcatenatesToTheReply() async throws {
        try await withMock { mock in
            let reply = try await mock.post("/v1beta/models/mock-fast:streamGenerateContent?alt=sse", Self.geminiBody)
            #expect(reply.status == 200)
            let payloads = try events(reply.text).map { try json($0.data) }
            let candidates = payloads.compactMap { ($0["candidates"] as? [[String: Any]])?.first }
            #expect(candidates.count == payloads.count)
            let texts = candidates.flatMap { (($0["content"] as? [String: Any])?["parts"] as? [[String: Any]]) ?? [] }
            #expect(
                texts.compactMap { $0["text"] as? String }.joined()
                    == MockReply.text(model: "mock-fast", tokens: Self.tokens))
            #expect(candidates.compactMap { $0["finishReason"] as? String } == ["STOP"])
            #expect(candidates.last?["finishReason"] as? String == "STOP")
            let usage = try #require(payloads.last?["usageMetadata"] as? [String: Int])
            #expect(
                usage == [
                    "promptTokenCount": 7, "candidatesTokenCount": Self.tokens, "totalTokenCount": 7 + Self.tokens,
                ])
        }
    }

    @Test func longReplyStreamsTheWholeDocument() async throws {
        try await withMock { mock in
            let reply = try await mock.post(
                "/v1/chat/completions", Self.openAIBody.replacingOccurrences(of: "mock-fast", with: "mock-long"))
            let chunks = try events(reply.text).map(\.data).dropLast().map(json)
            let contents = chunks.compactMap {
                (($0["choices"] as? [[String: Any]])?.first?["delta"] as? [String: Any])?["content"] as? String
            }
            #expect(contents == MockReply.chunks(model: "mock-long", tokens: Self.tokens))
        }
    }

    @Test func nonStreamingRequestGetsOneJSONBody() async throws {
        try await withMock { mock in
            let body = #"{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}"#
            let reply = try await mock.post("/v1/chat/completions", body)
            #expect(reply.status == 200)
            let message = try #require(
                (json(reply.text)["choices"] as? [[String: Any]])?.first?["message"] as? [String: Any])
            #expect(message["content"] as? String == MockReply.text(model: "gpt-4o", tokens: Self.tokens))
        }
    }

    @Test func firstTokenAndTokenDelaysPaceTheStream() async throws {
        try await withMock(.init(port: 0, tokens: 3, delayMilliseconds: 40, firstTokenMilliseconds: 100)) { mock in
            let start = ContinuousClock.now
            let reply = try await mock.post("/v1/chat/completions", Self.openAIBody)
            #expect(reply.status == 200)
            #expect(ContinuousClock.now - start >= .milliseconds(180))
        }
    }

    @Test("each token leaves at its due instant from the start (first delay + i × delay) and never before")
    func tokensAreNeverEarly() async throws {
        let (tokens, first, delay) = (8, 50, 20)
        try await withMock(.init(port: 0, tokens: tokens, delayMilliseconds: delay, firstTokenMilliseconds: first)) {
            mock in
            let start = ContinuousClock.now
            let response = try await mock.client.execute(
                mock.request("/v1/chat/completions", Self.openAIBody), timeout: .seconds(30))
            var arrivals: [Duration] = []
            var text = ""
            for try await buffer in response.body {
                text += String(decoding: buffer.readableBytesView, as: UTF8.self)
                let contents = events(text).filter { $0.data.contains(#""content""#) }.count
                arrivals += Array(repeating: start.duration(to: .now), count: contents - arrivals.count)
            }
            #expect(arrivals.count == tokens)
            for (index, arrival) in arrivals.enumerated() {
                #expect(arrival >= .milliseconds(first + index * delay), "token \(index) after \(arrival)")
            }
        }
    }

    @Test func rateLimitedModelAlternatesBetween429And200() async throws {
        try await withMock { mock in
            let body = Self.openAIBody.replacingOccurrences(of: "mock-fast", with: "mock-429")
            var statuses: [Int] = []
            for _ in 0..<4 {
                let reply = try await mock.post("/v1/chat/completions", body)
                statuses.append(reply.status)
                if reply.status == 429 {
                    #expect(reply.headers["retry-after"] == "1")
                    #expect(
                        (try json(reply.text)["error"] as? [String: Any])?["code"] as? String == "rate_limit_exceeded")
                }
            }
            #expect(statuses == [429, 200, 429, 200])
        }
    }

    @Test func serverErrorUsesEachVendorsErrorShape() async throws {
        try await withMock { mock in
            let openAI = try await mock.post(
                "/v1/chat/completions", Self.openAIBody.replacingOccurrences(of: "mock-fast", with: "mock-500"))
            #expect(openAI.status == 500)
            #expect((try json(openAI.text)["error"] as? [String: Any])?["type"] as? String == "server_error")
            let anthropic = try await mock.post(
                "/v1/messages", Self.anthropicBody.replacingOccurrences(of: "mock-fast", with: "mock-500"))
            #expect(anthropic.status == 500)
            let anthropicError = try json(anthropic.text)
            #expect(anthropicError["type"] as? String == "error")
            #expect((anthropicError["error"] as? [String: Any])?["type"] as? String == "api_error")
            let gemini = try await mock.post("/v1beta/models/mock-500:streamGenerateContent?alt=sse", Self.geminiBody)
            #expect(gemini.status == 500)
            let geminiError = try #require(json(gemini.text)["error"] as? [String: Any])
            #expect(geminiError["code"] as? Int == 500)
            #expect(geminiError["status"] as? String == "INTERNAL")
        }
    }

    @Test func badKeyIsRejectedAndMissingModelIsNotFound() async throws {
        try await withMock { mock in
            let openAI = try await mock.post(
                "/v1/chat/completions", Self.openAIBody, headers: ["authorization": "Bearer bad-key"])
            #expect(openAI.status == 401)
            #expect((try json(openAI.text)["error"] as? [String: Any])?["code"] as? String == "invalid_api_key")
            let good = try await mock.post(
                "/v1/chat/completions", Self.openAIBody, headers: ["authorization": "Bearer good-key"])
            #expect(good.status == 200)
            let anthropic = try await mock.post("/v1/messages", Self.anthropicBody, headers: ["x-api-key": "bad-key"])
            #expect(anthropic.status == 401)
            #expect((try json(anthropic.text)["error"] as? [String: Any])?["type"] as? String == "authentication_error")
            let gemini = try await mock.post(
                "/v1beta/models/mock-fast:streamGenerateContent?alt=sse&key=bad-key", Self.geminiBody)
            #expect(gemini.status == 403)
            #expect((try json(gemini.text)["error"] as? [String: Any])?["status"] as? String == "PERMISSION_DENIED")
            let missing = try await mock.post(
                "/v1/chat/completions", Self.openAIBody.replacingOccurrences(of: "mock-fast", with: "mock-missing"))
            #expect(missing.status == 404)
            #expect((try json(missing.text)["error"] as? [String: Any])?["code"] as? String == "model_not_found")
        }
    }

    @Test("prompt tokens count the characters of every message text, in text parts too, and not image URLs or roles")
    func promptTokensCountMessageTexts() throws {
        let openAI =
            #"{"model":"m","messages":[{"role":"system","content":"12345678"},{"role":"user","content":[{"type":"text","text":"abcd\"efg"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAAAAAAAAAAAAAA"}}]}]}"#
        let openAIBody = try ChatRequestBody(json: openAI)
        #expect(openAIBody.textLength == 8 + 8)
        #expect(openAIBody.promptTokens == 4)
        let anthropic =
            #"{"model":"m","system":[{"type":"text","text":"café 😀"}],"messages":[{"role":"user","content":"日本"}],"stream":true}"#
        #expect(try ChatRequestBody(json: anthropic).textLength == 6 + 2)
        let gemini =
            #"{"systemInstruction":{"parts":[{"text":"1234"}]},"contents":[{"role":"user","parts":[{"text":"5678"}]}],"generationConfig":{"text":"not counted"}}"#
        #expect(try ChatRequestBody(json: gemini).textLength == 8)
        #expect(try ChatRequestBody(json: #"{"model":"m"}"#).promptTokens == 1)
    }

    @Test("the body's fields are read only with their JSON types; anything but a JSON object is refused")
    func bodyFieldsAreTyped() throws {
        let typed = try ChatRequestBody(json: #"{"model":"m","stream":true,"stream_options":{"include_usage":true}}"#)
        #expect(typed.model == "m" && typed.stream == true && typed.includeUsage == true)
        let mistyped = try ChatRequestBody(json: #"{"model":7,"stream":"yes","stream_options":[true]}"#)
        #expect(mistyped.model == nil && mistyped.stream == nil && mistyped.includeUsage == nil)
        for invalid in [
            "", "[]", "\"text\"", "{", #"{"model":"m",}"#, #"{"model":"m"} trailing"#,
            #"{"messages":"# + String(repeating: "[", count: 100_000),
        ] {
            #expect(throws: JSONCursor.Invalid.self) { try ChatRequestBody(json: invalid) }
        }
    }

    @Test func malformedBodiesAreRefusedAndTheMockCarriesOn() async throws {
        try await withMock { mock in
            for body in [
                "not json", "[1,2]", #"{"model":"mock-fast","messages":[}"#, String(repeating: "[", count: 10_000),
            ] {
                let reply = try await mock.post("/v1/chat/completions", body)
                #expect(reply.status == 400)
                #expect(
                    (try json(reply.text)["error"] as? [String: Any])?["message"] as? String
                        == "Invalid request: body is not a JSON object")
            }
            let missingModel = try await mock.post("/v1/chat/completions", #"{"messages":[]}"#)
            #expect(missingModel.status == 400)
            #expect(try await mock.stats()["last_request"] as? NSDictionary == ["messages": [Any]()] as NSDictionary)
            let good = try await mock.post("/v1/chat/completions", Self.openAIBody)
            #expect(good.status == 200)
        }
    }

    @Test func modelListNamesEveryMockModel() async throws {
        try await withMock { mock in
            let reply = try await mock.get("/v1/models")
            let models = try #require(json(reply.text)["data"] as? [[String: Any]])
            let ids = models.compactMap { $0["id"] as? String }
            #expect(
                ids == [
                    "mock-fast", "mock-slow", "mock-429", "mock-500", "mock-reset", "mock-stall", "mock-garbage",
                    "mock-long",
                    "mock-empty", "mock-nousage", "mock-window", "mock-length", "mock-think", "mock-think-tag",
                    "mock-deaf", "mock-cite", "mock-tools",
                ])
        }
    }

    @Test func statsCountRequestsAndKeepTheLastBody() async throws {
        try await withMock { mock in
            _ = try await mock.post("/v1/chat/completions", Self.openAIBody)
            #expect(try await mock.stats()["requests"] as? Int == 1)
            let reset = try json(try await mock.post("/stats/reset", "").text)
            #expect(reset["requests"] as? Int == 0)
            #expect(reset["last_request"] is NSNull)
            _ = try await mock.post(
                "/v1/messages", Self.anthropicBody.replacingOccurrences(of: "mock-fast", with: "mock-429"))
            _ = try await mock.post("/v1/messages", Self.anthropicBody)
            let stats = try await mock.stats()
            #expect(stats["requests"] as? Int == 2)
            #expect(stats["completed"] as? Int == 1)
            #expect(stats["open"] as? Int == 0)
            #expect(stats["aborted"] as? Int == 0)
            let last = try #require(stats["last_request"] as? NSDictionary)
            #expect(last == (try json(Self.anthropicBody) as NSDictionary))
        }
    }

    @Test func closingAStalledStreamCountsAsAbortedAtOnce() async throws {
        try await withMock { mock in
            let (received, receivedContinuation) = AsyncStream.makeStream(of: String.self)
            let reader = Task {
                let response = try await mock.client.execute(
                    mock.request(
                        "/v1/chat/completions",
                        Self.openAIBody.replacingOccurrences(of: "mock-fast", with: "mock-stall")),
                    timeout: .seconds(30)
                )
                var text = ""
                for try await buffer in response.body {
                    text += String(decoding: buffer.readableBytesView, as: UTF8.self)
                    if text.components(separatedBy: "\n\n").count - 1 == MockReply.tokensBeforeFault {
                        receivedContinuation.yield(text)
                    }
                }
            }
            var iterator = received.makeAsyncIterator()
            let text = try #require(await iterator.next())
            let contents = try events(text).compactMap {
                ((try json($0.data)["choices"] as? [[String: Any]])?.first?["delta"] as? [String: Any])?["content"]
                    as? String
            }
            #expect(
                contents
                    == Array(
                        MockReply.chunks(model: "mock-stall", tokens: Self.tokens).prefix(MockReply.tokensBeforeFault)))
            #expect(try await mock.stats()["open"] as? Int == 1)

            reader.cancel()
            _ = await reader.result
            // Bounded wait, not a timing assertion: how fast is measured by `make bench`.
            let stats = try await ProviderHarness.waitForAbort(mock, within: .seconds(20))
            #expect(stats["aborted"] as? Int == 1)
            #expect(stats["open"] as? Int == 0)
            #expect(stats["completed"] as? Int == 0)
        }
    }

    @Test func keptConnectionsServeAnotherStreamAndStillSeeAClientLeave() async throws {
        // 60 tokens: the `mock-slow` stream below lasts 6 s, so that even a machine loaded by the whole suite sees the
        // client leave before the stream could end (with 12 tokens it once completed first).
        try await withMock(.init(port: 0, tokens: 60, delayMilliseconds: 20, keepsConnections: true)) { mock in
            for _ in 0..<2 {
                let reply = try await mock.post("/v1/chat/completions", Self.openAIBody)
                #expect(reply.status == 200 && reply.headers["connection"] == nil)
                #expect(events(reply.text).map(\.data).last == "[DONE]")
            }
            #expect(try await mock.stats()["completed"] as? Int == 2)

            // `mock-slow` (100 ms a token): a stream that a loaded machine held back past all its instants would send
            // the rest in one write and complete before the client's close could be seen.
            let slow = Self.openAIBody.replacingOccurrences(of: "mock-fast", with: "mock-slow")
            let reader = Task {
                let response = try await mock.client.execute(
                    mock.request("/v1/chat/completions", slow), timeout: .seconds(30))
                for try await _ in response.body { return }
            }
            _ = await reader.result
            reader.cancel()
            // Seen at the next write, 100 ms later at most; the wait is bounded, not a timing assertion.
            let stats = try await ProviderHarness.waitForAbort(mock, within: .seconds(5))
            #expect(stats["aborted"] as? Int == 1 && stats["open"] as? Int == 0)
        }
    }

    @Test func resetModelDropsTheConnectionMidStream() async throws {
        try await withMock { mock in
            await #expect(throws: (any Error).self) {
                _ = try await mock.post(
                    "/v1/chat/completions", Self.openAIBody.replacingOccurrences(of: "mock-fast", with: "mock-reset"))
            }
            let stats = try await mock.stats()
            #expect(stats["requests"] as? Int == 1)
            #expect(stats["open"] as? Int == 0)
            #expect(stats["completed"] as? Int == 0)
        }
    }

    @Test func garbageModelSendsMalformedLines() async throws {
        try await withMock { mock in
            let reply = try await mock.post(
                "/v1/chat/completions", Self.openAIBody.replacingOccurrences(of: "mock-fast", with: "mock-garbage"))
            #expect(reply.status == 200)
            #expect(reply.text.contains("data: {not json\n\n"))
            #expect(reply.bytes.contains(0xFF))
            #expect(!reply.text.contains("[DONE]"))
        }
    }
}

/// A mock upstream listening on a free port, and a client to call it.
struct MockHarness {
    /// A response read in full.
    struct Reply {
        let status: Int
        let headers: [String: String]  // lower-cased names
        let bytes: [UInt8]
        var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    let client: HTTPClient
    let port: Int

    /// A JSON POST request to `path`.
    func request(_ path: String, _ body: String, headers: [String: String] = [:]) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(string: body))
        return request
    }

    /// POSTs `body` to `path` and reads the whole response.
    func post(_ path: String, _ body: String, headers: [String: String] = [:]) async throws -> Reply {
        try await send(request(path, body, headers: headers))
    }

    /// GETs `path` and reads the whole response.
    func get(_ path: String) async throws -> Reply {
        try await send(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"))
    }

    /// The current `/stats` object.
    func stats() async throws -> [String: Any] {
        try json(try await get("/stats").text)
    }

    /// Executes `request` and collects its body.
    private func send(_ request: HTTPClientRequest) async throws -> Reply {
        let response = try await client.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 10 << 20)
        return Reply(
            status: Int(response.status.code),
            headers: Dictionary(response.headers.map { ($0.name.lowercased(), $0.value) }) { first, _ in first },
            bytes: Array(body.readableBytesView))
    }
}

/// Runs `body` against a fresh mock upstream on a free port, then stops it.
func withMock(
    _ configuration: MockUpstreamConfiguration = .init(port: 0, tokens: MockUpstreamTests.tokens),
    _ body: (MockHarness) async throws -> Void
) async throws {
    let client = HTTPClient(eventLoopGroupProvider: .singleton)
    do {
        try await MockUpstream(configuration: configuration).serving { port in
            try await body(MockHarness(client: client, port: port))
        }
    } catch {
        try? await client.shutdown()
        throw error
    }
    try await client.shutdown()
}

/// The server-sent events of `text`: their optional `event:` name and `data:` payload.
func events(_ text: String) -> [(event: String?, data: String)] {
    text.components(separatedBy: "\n\n").filter { !$0.isEmpty }.map { block in
        let lines = block.split(separator: "\n")
        let event = lines.first { $0.hasPrefix("event: ") }.map { String($0.dropFirst(7)) }
        let data = lines.filter { $0.hasPrefix("data: ") }.map { String($0.dropFirst(6)) }.joined(separator: "\n")
        return (event, data)
    }
}

/// Decodes a JSON object.
func json(_ text: String) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}
