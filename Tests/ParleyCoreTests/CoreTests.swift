import Foundation
import ParleyJSON
import ParleyMarkdown
import Testing

@testable import ParleyCore

/// Fitting a conversation into a model's context window.
@Suite struct ContextWindowTests {
    /// A turn of exactly 40 letters and spaces: 10 estimated tokens, 14 with the per-turn overhead.
    static func turn(_ role: MessageRole, _ index: Int) -> ChatTurn {
        let label = "\(role.rawValue) \(Character(UnicodeScalar(UInt8(ascii: "a") + UInt8(index)))) "
        return ChatTurn(role: role, content: label + String(repeating: "x", count: 40 - label.utf8.count))
    }

    /// u0, a1, u2, a3, u4, a5, u6: oldest first, ending with the user's question.
    static let history = (0..<7).map { turn($0.isMultiple(of: 2) ? .user : .assistant, $0) }

    @Test func estimatesAboutFourBytesAToken() {
        #expect(ContextWindow.estimatedTokens("") == 0)
        #expect(ContextWindow.estimatedTokens("abcd") == 1)
        #expect(ContextWindow.estimatedTokens("abcde") == 2)
        #expect(ContextWindow.estimatedTokens("é") == 1)
    }

    @Test(
        "the estimate errs high where tokenizers split finely: a token a digit or CJK character, two symbols a token, prose about four letters a token"
    )
    func estimatesDenseTextHigh() {
        // 3,521 digits were 3,519 tokens for a real tokenizer; four characters a token made 881.
        #expect(ContextWindow.estimatedTokens(String(repeating: "7", count: 3_521)) == 3_521)
        #expect(ContextWindow.estimatedTokens(String(repeating: "漢", count: 100)) == 100)
        #expect(ContextWindow.estimatedTokens(String(repeating: "한", count: 100)) == 100)
        #expect(ContextWindow.estimatedTokens("{}();") == 3)
        #expect(ContextWindow.estimatedTokens(String(repeating: "😀", count: 10)) == 20)
        let prose = "The quick brown fox jumps over the lazy dog and keeps running along the river bank"
        #expect(ContextWindow.estimatedTokens(prose) == (prose.utf8.count + 3) / 4)
    }

    @Test(
        "halving keeps the system prompt and the latest turns in about half the estimate; one turn alone cannot be halved"
    )
    func halving() throws {
        let turns = [ChatTurn(role: .system, content: "sys")] + Self.history
        let halved = try #require(ContextWindow.halved(turns))
        #expect(halved.first == turns.first)
        #expect(halved.last == Self.history.last)
        #expect(
            halved.reduce(0) { $0 + ContextWindow.estimatedTokens($1) } <= turns.reduce(0) {
                $0 + ContextWindow.estimatedTokens($1)
            } / 2)
        #expect(ContextWindow.halved([ChatTurn(role: .system, content: "sys"), Self.history[0]]) == nil)
    }

    @Test func keepsTheSystemPromptAndDropsTheOldestTurns() throws {
        // Budget 100 - 20 = 80; the system prompt takes 1 + 4, leaving 75: five turns of 14.
        let fitted = try ContextWindow.fit(systemPrompt: "sys", history: Self.history, window: 100, reserve: 20)
        #expect(fitted == [ChatTurn(role: .system, content: "sys")] + Self.history[2...])
    }

    @Test func neverStartsWithAnAssistantTurn() throws {
        // 86 - 20 - 5 = 61 fits four turns (a3, u4, a5, u6); the leading assistant turn goes too.
        let fitted = try ContextWindow.fit(systemPrompt: "sys", history: Self.history, window: 86, reserve: 20)
        #expect(fitted == [ChatTurn(role: .system, content: "sys")] + Self.history[4...])
        let noSystem = try ContextWindow.fit(systemPrompt: "", history: Self.history, window: 76, reserve: 20)
        #expect(noSystem.first?.role == .user)
        #expect(noSystem == Array(Self.history[4...]))
    }

    @Test func keepsEverythingWhenItFits() throws {
        let fitted = try ContextWindow.fit(systemPrompt: "", history: Self.history, window: 10_000, reserve: 500)
        #expect(fitted == Self.history)
    }

    @Test func reserveTakesAtMostHalfTheWindow() throws {
        // Window 40 with a huge reserve still leaves 20 tokens: room for the last turn (14).
        let fitted = try ContextWindow.fit(systemPrompt: "", history: Self.history, window: 40, reserve: 1_000)
        #expect(fitted == [Self.history[6]])
    }

    @Test func throwsWhenNotEvenTheLastTurnFits() {
        let huge = ChatTurn(role: .user, content: String(repeating: "y", count: 400))
        #expect(throws: ProviderError.contextTooLong) {
            try ContextWindow.fit(systemPrompt: "sys", history: [Self.history[0], huge], window: 100, reserve: 0)
        }
    }

    @Test func emptyHistoryIsFine() throws {
        #expect(try ContextWindow.fit(systemPrompt: "", history: [], window: 100, reserve: 10) == [])
        #expect(
            try ContextWindow.fit(systemPrompt: "sys", history: [], window: 100, reserve: 10)
                == [ChatTurn(role: .system, content: "sys")])
    }
}

/// Server-Sent Event ids built from a message id and a sequence number.
@Suite struct EventIDTests {
    @Test func roundTripsThroughItsShortForm() throws {
        let id = EventID(messageID: 42, sequence: 7)
        #expect(id.text == "G.7")
        #expect(EventID(id.text) == id)
        #expect(EventID(" G.7 ") == id)
        let large = EventID(messageID: 1_000_000, sequence: 3_843)
        #expect(large.text == "4c92.ZZ")
        #expect(EventID(large.text) == large)
        let done = EventID(messageID: 3, sequence: EventID.doneSequence)
        #expect(done.text == "3.FXsj")
        let parsed = try #require(EventID(done.text))
        #expect(parsed == done && parsed.isDone)
        #expect(EventID(messageID: MessageID.max, sequence: 0).text == "aZl8N0y58M7.0")
        #expect(EventID("aZl8N0y58M7.0") == EventID(messageID: MessageID.max, sequence: 0))
    }

    @Test("the decimal ids of earlier versions still name the same events")
    func readsTheDecimalForm() throws {
        #expect(EventID("420000007") == EventID(messageID: 42, sequence: 7))
        #expect(EventID(" 420000007 ") == EventID(messageID: 42, sequence: 7))
        let done = try #require(EventID("39999999"))
        #expect(done == EventID(messageID: 3, sequence: EventID.doneSequence) && done.isDone)
    }

    @Test func rejectsWhatIsNotOurs() {
        let rejected = [
            "", " ", "abc", "-5", "0", "1e9", "99999999999999999999999", "0x10", "7 8", ".", "G.", ".7", "0.7", "G.7.1",
            "G.-7", "G:7", "G.FXsk", "aZl8N0y58M8.0", "111111111111.0", "G. 7", "é.7",
        ]
        for text in rejected {
            #expect(EventID(text) == nil, "\(text) should not parse")
        }
    }

    @Test func sequencesAreCappedAtDone() {
        #expect(!EventID(messageID: 1, sequence: 0).isDone)
        #expect(!EventID(messageID: 1, sequence: EventID.doneSequence - 1).isDone)
        let capped = EventID(messageID: 1, sequence: EventID.doneSequence + 50)
        #expect(capped.sequence == EventID.doneSequence && capped.isDone)
        #expect(capped.messageID == 1)
        // A later reply's first event still sorts after an earlier reply's done.
        #expect(EventID(messageID: 2, sequence: 0) > capped)
    }
}

/// A reply's event log, kept without the parts every frame repeats.
@Suite struct EventLogTests {
    /// One reply's events of every kind, with the ids a reply gives them.
    static let events: [(StreamEvent, EventID)] = {
        let message: MessageID = 77
        let events: [StreamEvent] = [
            .start(messageID: message, model: "gpt \"4\""),
            .token(
                messageID: message, text: "Hello, <world>",
                html: StreamedHTML(append: "", tail: "<p>Hello, &lt;world&gt;</p>")),
            .token(messageID: message, text: " ünïcødé\n\n", html: StreamedHTML(append: "<p>Hello</p>\n", tail: nil)),
            .error(messageID: message, reason: FailureReason(code: "rate_limited", message: "Slow down.")),
            .toolCall(
                messageID: message, call: ToolCall(id: "call_1", name: "t__add", arguments: #"{"a": 1}"#),
                awaitingConfirmation: true),
            .toolCall(
                messageID: message, call: ToolCall(id: "call_2", name: "t__fail", arguments: "{}"),
                awaitingConfirmation: false),
            .toolResult(
                messageID: message,
                step: ToolStep(
                    call: ToolCall(id: "call_1", name: "t__add", arguments: #"{"a": 1}"#), status: .done,
                    result: ToolResult(callID: "call_1", name: "t__add", content: "2", isError: false))),
            .toolResult(
                messageID: message,
                step: ToolStep(
                    call: ToolCall(id: "call_2", name: "t__fail", arguments: "{}"), status: .done,
                    result: ToolResult(callID: "call_2", name: "t__fail", content: "Error <failed>", isError: true))),
        ]
        var numbered = events.enumerated().map { ($1, EventID(messageID: message, sequence: Int64($0 + 1))) }
        numbered.append(
            (
                .done(
                    messageID: message, status: .stopped, html: "<p>Hello</p>\n",
                    usage: Usage(promptTokens: 3, completionTokens: 4)),
                EventID(messageID: message, sequence: EventID.doneSequence)
            ))
        return numbered
    }()

    @Test("the frames read from any event on are exactly the events' own frames, joined")
    func framesMatchTheEncoder() {
        var log = EventLog()
        for (event, id) in Self.events {
            log.append(fields: Array(event.otherFields.members), kind: event.kind, id: id)
        }
        #expect(log.count == Self.events.count)
        for index in 0..<Self.events.count {
            let named = Self.events[index...].map { $0.0.frame(id: $0.1, replyNamed: true) }
            let unnamed = [Self.events[index].0.frame(id: Self.events[index].1)] + named.dropFirst()
            #expect(String(decoding: log.events(from: index).frames(replyNamed: true), as: UTF8.self) == named.joined())
            #expect(
                String(decoding: log.events(from: index).frames(replyNamed: false), as: UTF8.self) == unnamed.joined())
        }
    }

    @Test("a token names its reply only where the stream has not, and leaves out empty fields but an empty tail")
    func tokenFrames() {
        let (hello, helloID) = Self.events[1]
        #expect(
            hello.frame(id: helloID)
                == #"id:1f.2\#nevent:token\#ndata:{"message_id":77,"text":"Hello, <world>","tail":"<p>Hello, &lt;world&gt;</p>"}\#n\#n"#
        )
        #expect(
            hello.frame(id: helloID, replyNamed: true)
                == #"id:1f.2\#nevent:token\#ndata:{"text":"Hello, <world>","tail":"<p>Hello, &lt;world&gt;</p>"}\#n\#n"#
        )
        let cleared = StreamEvent.token(messageID: 77, text: "", html: StreamedHTML(append: "<p>Hi</p>\n", tail: ""))
        #expect(
            cleared.frame(id: helloID, replyNamed: true)
                == #"id:1f.2\#nevent:token\#ndata:{"append":"<p>Hi</p>\n","tail":""}\#n\#n"#)
        let (error, errorID) = Self.events[3]
        #expect(error.frame(id: errorID, replyNamed: true).contains(#"data:{"message_id":77,"code""#))
    }

    @Test("a log of short tokens keeps less than its frames' bytes")
    func logIsSmallerThanItsFrames() {
        var log = EventLog()
        var frameBytes = 0
        for sequence in 1...200 {
            let id = EventID(messageID: 123_456, sequence: Int64(sequence))
            let event = StreamEvent.token(messageID: 123_456, text: " word", html: StreamedHTML(append: "", tail: nil))
            frameBytes += event.frame(id: id, replyNamed: sequence > 1).utf8.count
            log.append(fields: Array(event.otherFields.members), kind: event.kind, id: id)
        }
        let copied = log.events(from: 0)
        let kept = copied.bytes.count + copied.entries.count * MemoryLayout<EventLog.Entry>.stride
        #expect(kept * 10 < frameBytes * 7)
        #expect(copied.frames(replyNamed: false).count == frameBytes)
    }
}

/// The hand-written JSON builder.
@Suite struct JSONTextTests {
    @Test func escapesWhatJSONNeedsAndLeavesHTMLAlone() {
        var json = JSONText()
        json.field("s", "q\"b\\n\nr\rt\t\u{01}\u{1F}<>&\u{2028}\u{2029}é…\u{2027}\u{7F}")
        #expect(json.result == #"{"s":"q\"b\\n\nr\rt\t\u0001\u001f<>&\u2028\u2029é…\#u{2027}\#u{7F}"}"#)
    }

    @Test func buildsEveryKindOfField() {
        var inner = JSONText()
        inner.field("ok", true)
        inner.field("no", false)
        var json = JSONText()
        json.field("i", 42)
        json.field("big", Int64.min)
        json.field("d", 0.5)
        json.field("inf", Double.infinity)
        json.field("nested", object: inner)
        json.field("list", objects: [inner, JSONText { $0.field("s", "x") }, JSONText()])
        json.field("none", objects: [])
        json.field("each", objectsFrom: [0, -7, 1_000_000]) { object, number in
            object.field("n", number)
            object.field("q", "\"\(number)\"")
        }
        json.field("noneEach", objectsFrom: [Int]()) { object, number in object.field("n", number) }
        json.field("after", 0)
        #expect(
            json.result == #"{"i":42,"big":-9223372036854775808,"d":0.5,"inf":0,"nested":{"ok":true,"no":false},"#
                + #""list":[{"ok":true,"no":false},{"s":"x"},{}],"none":[],"#
                + #""each":[{"n":0,"q":"\"0\""},{"n":-7,"q":"\"-7\""},{"n":1000000,"q":"\"1000000\""}],"noneEach":[],"after":0}"#
        )
        #expect(JSONText().result == "{}")
    }

    @Test func outputParsesBackToTheSameStrings() throws {
        let values = [
            "plain", "", "quote \" and backslash \\ and slash /", "lines\n\r\n\ttabs", "\u{0}\u{7}\u{1B}\u{7F}",
            "<script>alert('x')</script> & more", "line\u{2028}separator\u{2029}", "emoji 👩‍👩‍👧 🚀 flag 🇯🇵",
            "中文字符 日本語 한국어", "combining e\u{301}",
        ]
        var json = JSONText()
        for (index, value) in values.enumerated() {
            json.field("k\(index) \"<&>\"", value)
        }
        let text = json.result
        #expect(!text.contains("\u{2028}") && !text.contains("\u{2029}"))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String])
        #expect(parsed.count == values.count)
        for (index, value) in values.enumerated() {
            #expect(parsed["k\(index) \"<&>\""] == value)
        }
    }
}

/// The wait before retrying an upstream request.
@Suite struct RetryPolicyTests {
    @Test func honoursRetryAfterUpToTheCap() {
        let policy = RetryPolicy(maxRetries: 3, baseDelay: .milliseconds(100), maxDelay: .seconds(8))
        #expect(policy.delay(attempt: 0, retryAfterSeconds: 2) == .seconds(2))
        #expect(policy.delay(attempt: 3, retryAfterSeconds: 0.25) == .milliseconds(250))
        #expect(policy.delay(attempt: 0, retryAfterSeconds: 0) == .zero)
        #expect(policy.delay(attempt: 0, retryAfterSeconds: 120) == .seconds(8))
        // A hostile header must not overflow: huge and infinite values are capped too.
        #expect(policy.delay(attempt: 0, retryAfterSeconds: 1e300) == .seconds(8))
        #expect(policy.delay(attempt: 0, retryAfterSeconds: .infinity) == .seconds(8))
    }

    @Test func backsOffExponentiallyWithJitter() {
        let policy = RetryPolicy(maxRetries: 5, baseDelay: .milliseconds(100), maxDelay: .seconds(60))
        for attempt in 0..<5 {
            let ceiling = Duration.milliseconds(100 << attempt)
            var seen: Set<Duration> = []
            for _ in 0..<50 {
                let delay = policy.delay(attempt: attempt, retryAfterSeconds: nil)
                #expect(delay >= ceiling / 2 && delay <= ceiling, "attempt \(attempt): \(delay)")
                seen.insert(delay)
            }
            #expect(seen.count > 1, "attempt \(attempt) is not jittered")
        }
        // A negative Retry-After is ignored in favour of backoff.
        let fallback = policy.delay(attempt: 0, retryAfterSeconds: -1)
        #expect(fallback >= .milliseconds(50) && fallback <= .milliseconds(100))
    }

    @Test func backoffIsCappedAtMaxDelay() {
        let policy = RetryPolicy(maxRetries: 50, baseDelay: .milliseconds(250), maxDelay: .seconds(8))
        for attempt in [6, 10, 40, 1_000] {
            let delay = policy.delay(attempt: attempt, retryAfterSeconds: nil)
            #expect(delay >= .seconds(4) && delay <= .seconds(8), "attempt \(attempt): \(delay)")
        }
    }
}

/// Model prices and provider errors.
@Suite struct ProviderModelTests {
    @Test func costIsPerMillionTokens() {
        let price = ModelPrice(input: 3, cachedInput: 0.3, output: 15)
        #expect(abs(price.cost(promptTokens: 1_000, completionTokens: 2_000) - 0.033) < 1e-12)
        #expect(abs(price.cost(promptTokens: 1_000_000, completionTokens: 0) - 3) < 1e-12)
        #expect(abs(price.cost(promptTokens: 0, completionTokens: 1_000_000) - 15) < 1e-12)
        #expect(ModelPrice().cost(promptTokens: 500, completionTokens: 500) == 0)
    }

    static let everyError: [ProviderError] = [
        .missingKey(provider: "OpenAI"), .rejectedKey(provider: "Anthropic"), .modelNotFound(model: "gpt-x"),
        .rateLimited(retryAfterSeconds: 3), .rateLimited(retryAfterSeconds: nil), .overloaded(status: 503),
        .unreachable(detail: "refused"), .timedOut, .contextTooLong, .refused(detail: "policy"),
        .malformedResponse(detail: "bad json"), .rejected(status: 400, detail: "bad request"), .cancelled,
    ]

    @Test func onlyTransientErrorsAreRetryable() {
        let retryable = Self.everyError.filter(\.isRetryable)
        #expect(
            retryable == [
                .rateLimited(retryAfterSeconds: 3), .rateLimited(retryAfterSeconds: nil),
                .overloaded(status: 503), .unreachable(detail: "refused"),
            ])
    }

    @Test func everyErrorHasAReason() {
        for error in Self.everyError {
            #expect(!error.reason.code.isEmpty, "\(error)")
            #expect(!error.reason.message.isEmpty, "\(error)")
        }
        let codes = Set(Self.everyError.map(\.reason.code))
        #expect(codes.count == Self.everyError.count - 1)  // both rate-limit cases share one code
        #expect(ProviderError.missingKey(provider: "OpenAI").reason.message.contains("OpenAI"))
        #expect(ProviderError.overloaded(status: 503).reason.message.contains("503"))
        #expect(ProviderError.rejected(status: 400, detail: "bad request").reason.message.contains("bad request"))
        #expect(ProviderError.contextTooLong.reason.code == "context_too_long")
    }
}

/// The gap between token events widens with load, within its bounds.
@Suite struct CoalescingTests {
    @Test func theGapStaysShortUntilManyRepliesRunThenWidensUpToItsCap() {
        let settings = GenerationSettings()
        #expect(settings.coalesceInterval(running: 0) == .milliseconds(30))
        #expect(settings.coalesceInterval(running: 120) == .milliseconds(30))
        #expect(settings.coalesceInterval(running: 400) == .milliseconds(100))
        #expect(settings.coalesceInterval(running: 10_000) == .milliseconds(150))
        let fast = GenerationSettings(coalesceInterval: .milliseconds(200), maxCoalesceInterval: .milliseconds(50))
        #expect(fast.coalesceInterval(running: 1_000) == .milliseconds(200))  // the cap never undercuts the base
    }

    @Test func theTimerTicksAsTwentyGapsPass_twiceAGapAtLeast_noOftenerThan5ms() {
        let settings = GenerationSettings()
        #expect(settings.coalesceTick(running: 0) == .milliseconds(30))  // an idle server wakes no more than before
        #expect(settings.coalesceTick(running: 1) == .milliseconds(15))  // a few replies: twice a gap
        #expect(settings.coalesceTick(running: 40) == .milliseconds(15))
        #expect(settings.coalesceTick(running: 100) == .milliseconds(6))
        #expect(settings.coalesceTick(running: 500) == .milliseconds(5))  // 125 ms gaps: twenty pass every 5 ms
        #expect(settings.coalesceTick(running: 1_000) == .milliseconds(10))  // 10 µs a reply to look through
        #expect(settings.coalesceTick(running: 10_000) == .milliseconds(30))  // never coarser than the gap
        let quick = GenerationSettings(coalesceInterval: .milliseconds(2))
        #expect(quick.coalesceTick(running: 1) == .milliseconds(2))  // the 5 ms floor never exceeds the gap
    }
}

/// The catalog follows a provider's model list: new models are offered, withdrawn ones dropped, configured ones kept.
@Suite struct ModelCatalogTests {
    @Test func aRefreshedListAddsNewModelsAndWithdrawsOnlyDiscoveredOnes() {
        let configured = ModelInfo(id: "configured", providerID: "local", vision: true)
        let catalog = ModelCatalog(models: [configured], providers: [:], isDemoOnly: false)
        catalog.setDiscoveredModels(
            ["configured", "a", "b"].map { ModelInfo(id: $0, providerID: "local") }, providerID: "local")
        #expect(catalog.models.map(\.id) == ["configured", "a", "b"])
        #expect(catalog.model("configured")?.vision == true)  // the configured entry wins over the listed one
        catalog.setDiscoveredModels(["b", "c"].map { ModelInfo(id: $0, providerID: "local") }, providerID: "local")
        #expect(catalog.models.map(\.id) == ["configured", "b", "c"])  // "configured" stays though no longer listed
        catalog.setDiscoveredModels([ModelInfo(id: "x", providerID: "other")], providerID: "other")
        catalog.setDiscoveredModels([], providerID: "local")
        #expect(catalog.models.map(\.id) == ["configured", "x"])
    }

    @Test func aRelistedModelTakesItsNewWindowInPlaceButAConfiguredOneKeepsItsOwn() {
        let configured = ModelInfo(id: "configured", providerID: "local", contextWindow: 32_000)
        let catalog = ModelCatalog(models: [configured], providers: [:], isDemoOnly: false)
        let listed = { (window: Int) in
            ["a", "configured", "b"].map { ModelInfo(id: $0, providerID: "local", contextWindow: window) }
        }
        catalog.setDiscoveredModels(listed(8_192), providerID: "local")
        catalog.setDiscoveredModels(listed(2_048), providerID: "local")
        #expect(catalog.models.map(\.id) == ["configured", "a", "b"])
        #expect(catalog.models.map(\.contextWindow) == [32_000, 2_048, 2_048])
    }
}

/// An image model's revised prompt is shown as written, never as markdown of the upstream's choosing.
@Suite struct GeneratedCaptionTests {
    @Test func everyMarkdownCharacterIsEscapedAndLinesAreJoined() {
        #expect(
            GenerationManager.escapedMarkdown("![x](http://evil) *b* <i>\nnext")
                == #"\!\[x\]\(http\:\/\/evil\) \*b\* \<i\> next"#)
        #expect(GenerationManager.escapedMarkdown("a fox, in snow") == #"a fox\, in snow"#)
    }
}

/// How a model is named in lists.
@Suite struct ModelDisplayNameTests {
    @Test(
        "an id is its own name; a model file's path shows the file's name without .gguf; a long one is cut to 60 characters"
    )
    func displayNames() {
        #expect(ModelInfo(id: "gpt-4o", providerID: "openai").displayName == "gpt-4o")
        #expect(
            ModelInfo(id: "/models/SmolLM2-135M-Instruct.Q8_0.gguf", providerID: "local").displayName
                == "SmolLM2-135M-Instruct.Q8_0")
        #expect(ModelInfo(id: "meta-llama/Llama-3.1-8B", providerID: "vllm").displayName == "meta-llama/Llama-3.1-8B")
        #expect(ModelInfo(id: "models/tiny.gguf", providerID: "local").displayName == "tiny")
        #expect(ModelInfo(id: "/", providerID: "odd").displayName == "/")
        let long = ModelInfo(id: String(repeating: "a", count: 100), providerID: "local").displayName
        #expect(long.count == 60 && long.hasSuffix("…"))
    }
}
