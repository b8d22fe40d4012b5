import Testing

@testable import ParleyCore

/// A running reply's reasoning: kept apart from its answer, published as `reasoning` events, saved with its progress,
/// and the first text a reader sees when it comes first.
@Suite struct ReasoningReplyTests {
    /// The kinds of the events in the log of the reply's conversation.
    static func loggedKinds(_ hub: ConversationHub) -> [StreamEvent.Kind] {
        var position = StreamPosition(messageID: 1, index: 0)
        return hub.unreadEvents(in: 1, at: &position)?.events.entries.map(\.kind) ?? []
    }

    @Test("the first reasoning is the reply's first token: timed, and its event the one whose write is counted")
    func firstReasoningIsTheFirstToken() throws {
        let reply = AddedFirstTokenTimeTests.generation()
        let hub = ConversationHub()
        hub.launch(reply)
        reply.markRequestSent()
        reply.publish(.start(messageID: 1, model: "model"), to: hub)
        #expect(reply.receiveReasoning("Let me think"))
        #expect(!reply.receive("Hi"))
        #expect(!reply.receiveReasoning(" more"))
        reply.publishTokens(to: hub, now: .zero, interval: .zero, force: false)
        #expect(Self.loggedKinds(hub) == [.start, .reasoning, .token])
        #expect(reply.addedFirstTokenTime(wroteUpTo: 1) == nil)
        // The reasoning event (sequence 2) came before the answer's (3): writing it is the first token.
        #expect(reply.addedFirstTokenTime(wroteUpTo: 2) != nil)
    }

    @Test("reasoning alone makes reasoning events, coalesced like tokens, and no token event")
    func reasoningEventsAreCoalesced() {
        let reply = AddedFirstTokenTimeTests.generation()
        let hub = ConversationHub()
        hub.launch(reply)
        #expect(reply.receiveReasoning("a"))
        reply.publishTokens(to: hub, now: .zero, interval: .milliseconds(30), force: false)
        #expect(!reply.receiveReasoning("b"))
        // Within the interval: held for the next tick.
        reply.publishTokens(to: hub, now: .milliseconds(10), interval: .milliseconds(30), force: false)
        #expect(Self.loggedKinds(hub) == [.reasoning])
        #expect(!reply.receiveReasoning("c"))
        reply.publishTokens(to: hub, now: .milliseconds(40), interval: .milliseconds(30), force: false)
        #expect(Self.loggedKinds(hub) == [.reasoning, .reasoning])
        #expect(reply.outcome.reasoning == "abc" && reply.outcome.text == "")
        #expect(reply.hasOutput)
    }

    @Test("a progress save takes the reasoning with the text, again whenever either grew")
    func progressCarriesTheReasoning() {
        let reply = AddedFirstTokenTimeTests.generation()
        #expect(reply.takeUnsavedProgress() == nil)
        _ = reply.receiveReasoning("hmm")
        #expect(reply.takeUnsavedProgress() == ReplyProgress(content: "", reasoning: "hmm"))
        #expect(reply.takeUnsavedProgress() == nil)
        _ = reply.receiveReasoning(", yes")
        #expect(reply.takeUnsavedProgress() == ReplyProgress(content: "", reasoning: "hmm, yes"))
        _ = reply.receive("Yes.")
        #expect(reply.takeUnsavedProgress() == ReplyProgress(content: "Yes.", reasoning: "hmm, yes"))
        let plain = AddedFirstTokenTimeTests.generation()
        _ = plain.receive("No reasoning")
        #expect(plain.takeUnsavedProgress() == ReplyProgress(content: "No reasoning", reasoning: nil))
    }
}
