import Foundation
import ParleyMarkdown
import Testing

@testable import ParleyCore

/// The hub's logs of replies other instances run, as the relay brings their events.
@Suite struct RelayedReplyTests {
    static let conversation: ConversationID = 5
    static let reply: MessageID = 40

    /// An event of the reply, relayed with its sequence.
    static func relayed(_ event: StreamEvent, _ sequence: Int64) -> RelayedEvent {
        RelayedEvent(event, id: EventID(messageID: reply, sequence: sequence), conversationID: conversation)
    }

    static let start = StreamEvent.start(messageID: reply, model: "m")
    static let token = StreamEvent.token(
        messageID: reply, text: "Hello **you**", html: StreamedHTML(append: "<p>Hello</p>", tail: "<p>you</p>"))
    static let done = StreamEvent.done(messageID: reply, status: .complete, html: "<p>Hello you</p>", usage: Usage())

    /// The frames a stream at `position` reads next, and whether they end the reply.
    static func read(_ hub: ConversationHub, _ position: inout StreamPosition) -> (text: String, ended: Bool)? {
        hub.unreadEvents(in: conversation, at: &position).map {
            (String(decoding: $0.events.frames(replyNamed: false), as: UTF8.self), $0.ended)
        }
    }

    @Test("a reply heard from its start is logged as its own instance logs it, and ends with its done")
    func heardFromTheStart() {
        let hub = ConversationHub()
        let stream = hub.openStream(in: Self.conversation)
        var position = StreamPosition(messageID: stream.messageID, index: 0)
        hub.receive(Self.relayed(Self.start, 1))
        hub.receive(Self.relayed(Self.token, 2))
        #expect(hub.runsElsewhere(Self.conversation))
        let running = Self.read(hub, &position)
        #expect(running?.ended == false)

        var owner = EventLog()
        for (event, sequence) in [(Self.start, Int64(1)), (Self.token, 2)] {
            owner.append(
                fields: Array(event.otherFields.members), kind: event.kind,
                id: EventID(messageID: Self.reply, sequence: sequence))
        }
        #expect(running?.text == String(decoding: owner.events(from: 0).frames(replyNamed: false), as: UTF8.self))

        hub.receive(Self.relayed(Self.done, EventID.doneSequence))
        let end = Self.read(hub, &position)
        #expect(end?.ended == true && end?.text.contains("event:done") == true)
        #expect(!hub.runsElsewhere(Self.conversation))
        // Late or repeated events of an ended reply, and those of an older reply, change nothing.
        hub.receive(Self.relayed(Self.token, 3))
        hub.receive(
            RelayedEvent(
                .start(messageID: Self.reply - 1, model: "m"), id: EventID(messageID: Self.reply - 1, sequence: 1),
                conversationID: Self.conversation))
        #expect(Self.read(hub, &position) == nil)
    }

    @Test("a reply heard from its middle is gapped: its tokens keep their text alone, with its beginning's id")
    func heardFromTheMiddle() {
        let hub = ConversationHub()
        hub.receive(Self.relayed(Self.token, 7))
        let joined = hub.openStream(in: Self.conversation)
        #expect(joined.isGapped && joined.isRunning)
        var position = StreamPosition(messageID: Self.reply, index: 0)
        let frames = Self.read(hub, &position)?.text ?? ""
        #expect(frames.hasPrefix("id:\(EventID(messageID: Self.reply, sequence: 0).text)\nevent:token\n"))
        #expect(frames.contains(#""text":"Hello **you**""#) && !frames.contains("append") && !frames.contains("tail"))
    }

    @Test("a stream that was following the conversation before a gapped log began reads none of it: it starts again")
    func streamsBeforeAGapStartAgain() async {
        let hub = ConversationHub()
        let stream = hub.openStream(in: Self.conversation)
        var position = StreamPosition(messageID: stream.messageID, index: 0)
        hub.receive(Self.relayed(Self.token, 7))
        #expect(Self.read(hub, &position) == nil)
        #expect(await hub.waitForWake(stream: stream.id, in: Self.conversation, at: position) == .restart)
    }

    @Test("events after a gap in the sequence make the log gapped; missed events forget replies no stream follows")
    func gapsAndMissedEvents() {
        let hub = ConversationHub()
        hub.receive(Self.relayed(Self.start, 1))
        hub.receive(Self.relayed(Self.token, 3))
        let stream = hub.openStream(in: Self.conversation)
        #expect(stream.isGapped)
        hub.closeStream(stream.id, in: Self.conversation)
        hub.missedEvents()
        #expect(!hub.runsElsewhere(Self.conversation))
        #expect(hub.openStream(in: Self.conversation).messageID == nil)
    }
}
