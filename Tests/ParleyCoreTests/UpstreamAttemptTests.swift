import Testing

@testable import ParleyCore

/// What a reply does after its provider failed, decided without a server: halving a context found too long, retries
/// with backoff, the fallback model, and failing.
@Suite struct UpstreamAttemptTests {
    /// A provider that is never asked: the decisions only carry it.
    struct Unasked: ChatProvider {
        let name: String
        func streamCompletion(
            _ request: CompletionRequest, onSent: @escaping @Sendable () -> Void,
            onChunk: @escaping @Sendable (CompletionChunk) -> Duration
        ) async throws(ProviderError) {
            throw .cancelled
        }
    }

    static let policy = RetryPolicy(maxRetries: 2, baseDelay: .milliseconds(100), maxDelay: .seconds(1))
    static let backup = ModelInfo(id: "backup", upstreamID: "backup-v2", providerID: "other")
    static let fallback: UpstreamAttempt.Fallback = (backup, Unasked(name: "other"))

    /// An attempt at `main` with `turns` turns of 40 characters each, alternating user and assistant.
    static func attempt(turns: Int = 4) -> UpstreamAttempt {
        let history = (0..<turns).map { index in
            ChatTurn(role: index.isMultiple(of: 2) ? .user : .assistant, content: String(repeating: "word ", count: 8))
        }
        return UpstreamAttempt(
            modelID: "main", provider: Unasked(name: "main"),
            request: CompletionRequest(model: "main-v1", turns: history))
    }
}

extension UpstreamAttempt {
    /// `next(after:…)` with the suite's policy, before any text, and the suite's fallback unless told otherwise.
    mutating func decide(
        _ error: ProviderError, hasText: Bool = false,
        fallback: Fallback? = UpstreamAttemptTests.fallback
    ) -> Next {
        next(after: error, hasText: hasText, policy: UpstreamAttemptTests.policy, fallback: fallback)
    }
}

extension UpstreamAttemptTests {
    @Test func anOutageIsRetriedWithBackoffThenHandedToTheFallback() {
        var attempt = Self.attempt()
        for retry in 0..<2 {
            guard case .retry(let delay) = attempt.decide(.overloaded(status: 503)) else {
                Issue.record("retry \(retry) was not a retry")
                return
            }
            let ceiling = Duration.milliseconds(100 * (1 << retry))
            #expect(delay >= ceiling / 2 && delay <= ceiling)
        }
        #expect(attempt.decide(.overloaded(status: 503)) == .fallBack)
        #expect(attempt.modelID == "backup" && attempt.request.model == "backup-v2" && attempt.isFallback)
        #expect(attempt.retries == 0 && attempt.request.turns == Self.attempt().request.turns)
        // The fallback gets its own retries, then the reply fails: a fallback has no fallback.
        _ = attempt.decide(.unreachable(detail: "reset"))
        _ = attempt.decide(.unreachable(detail: "reset"))
        #expect(attempt.decide(.unreachable(detail: "reset")) == .fail(.unreachable(detail: "reset")))
    }

    @Test func aRateLimitWaitsWhatTheProviderSays() {
        var attempt = Self.attempt()
        #expect(
            attempt.decide(.rateLimited(retryAfterSeconds: 0.5), fallback: nil)
                == .retry(after: .milliseconds(500)))
        #expect(attempt.retries == 1)
    }

    @Test func aConnectionThatCouldNotBeOpenedGoesToTheFallbackAtOnce() {
        var attempt = Self.attempt()
        #expect(
            attempt.decide(.connectFailed(detail: "refused"))
                == .fallBack)
        var alone = Self.attempt()
        #expect(
            alone.decide(.connectFailed(detail: "refused"), fallback: nil)
                == .fail(.connectFailed(detail: "refused")))
    }

    @Test func aContextTooLongIsHalvedOnceThenFails() {
        for error in [ProviderError.contextTooLong, .emptyReply] {
            var attempt = Self.attempt(turns: 8)
            #expect(attempt.decide(error) == .retry(after: .zero))
            #expect(attempt.isHalved && attempt.request.turns.count < 8 && attempt.retries == 0)
            #expect(attempt.request.turns.last == Self.attempt(turns: 8).request.turns.last)
            #expect(attempt.decide(error) == .fail(error))
        }
    }

    @Test func aCallersWholeContextIsNeverCutAndTheFallbackKeepsItsSampling() {
        var attempt = Self.attempt(turns: 8)
        attempt.keepsWholeContext = true
        attempt.request.temperature = 0.3
        attempt.request.stop = ["END"]
        #expect(attempt.decide(.contextTooLong) == .fail(.contextTooLong))
        #expect(attempt.request.turns.count == 8)
        _ = attempt.decide(.overloaded(status: 503))
        _ = attempt.decide(.overloaded(status: 503))
        #expect(attempt.decide(.overloaded(status: 503)) == .fallBack)
        #expect(attempt.keepsWholeContext && attempt.request.model == "backup-v2")
        #expect(attempt.request.temperature == 0.3 && attempt.request.stop == ["END"])
    }

    @Test func nothingIsRetriedOnceTextWasShown() {
        for error in [ProviderError.overloaded(status: 502), .contextTooLong, .connectFailed(detail: "x")] {
            var attempt = Self.attempt()
            #expect(attempt.decide(error, hasText: true) == .fail(error))
            #expect(attempt.modelID == "main" && attempt.retries == 0)
        }
    }

    @Test func aRefusalOrABadKeyFailsAtOnce() {
        let errors: [ProviderError] = [
            .refused(detail: "policy"), .rejectedKey(provider: "main"),
            .modelNotFound(model: "main-v1"), .timedOut, .malformedResponse(detail: "x"),
        ]
        for error in errors {
            var attempt = Self.attempt()
            #expect(attempt.decide(error) == .fail(error))
        }
    }
}

/// The context a reply sends: trimmed to the window from the oldest turn, image placeholders for a vision model only.
@Suite struct ReplyContextTests {
    static func message(_ id: Int64, _ role: MessageRole, _ content: String, images: Int = 0) -> HistoryMessage {
        let attachments = (0..<images).map { index in
            Attachment(
                id: Int64(index), messageID: id, format: .png,
                fileName: "a.png", byteCount: 1, width: 1, height: 1, digest: "d\(index)")
        }
        return HistoryMessage(id: id, role: role, content: content, attachments: attachments)
    }

    @Test func theLatestTurnsAreKeptAndMappedToTheirMessages() throws {
        let history = (1...40).map { id in
            Self.message(Int64(id), id.isMultiple(of: 2) ? .assistant : .user, String(repeating: "x", count: 400))
        }
        let model = ModelInfo(id: "m", providerID: "p", contextWindow: 2_000)
        let (turns, kept) = try ReplyContext.fittedTurns(
            systemPrompt: "Be brief.", history: history, model: model,
            reserve: 500)
        #expect(turns.first == ChatTurn(role: .system, content: "Be brief."))
        #expect(kept.count == turns.count - 1 && kept.count < 40)
        #expect(kept.last?.message.id == 40)
        for (index, message) in kept { #expect(turns[index].content == message.content) }
    }

    @Test func imagesArePlaceholdersForAVisionModelOnlyAndOnlyForTheUser() throws {
        let history = [
            Self.message(1, .user, "look", images: 2), Self.message(2, .assistant, "a cat", images: 1),
            Self.message(3, .user, "and this?"),
        ]
        let vision = ModelInfo(id: "v", providerID: "p", vision: true)
        let seeing = try ReplyContext.fittedTurns(systemPrompt: "", history: history, model: vision, reserve: 100).turns
        #expect(seeing.map(\.images.count) == [2, 0, 0])
        #expect(seeing[0].images.allSatisfy { $0.bytes.isEmpty && $0.contentType == "image/png" })
        let blind = ModelInfo(id: "b", providerID: "p", vision: false)
        #expect(
            try ReplyContext.fittedTurns(systemPrompt: "", history: history, model: blind, reserve: 100).turns
                .allSatisfy(\.images.isEmpty))
    }

    @Test func aQuestionLargerThanTheWindowIsRefusedClearly() {
        let history = [Self.message(1, .user, String(repeating: "x", count: 40_000))]
        let model = ModelInfo(id: "m", providerID: "p", contextWindow: 2_000)
        #expect(throws: ProviderError.contextTooLong.reason) {
            try ReplyContext.fittedTurns(systemPrompt: "", history: history, model: model, reserve: 500)
        }
    }
}
