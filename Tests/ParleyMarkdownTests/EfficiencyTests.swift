import ParleyCore
import ParleyMarkdown
import Testing

/// Measures how much HTML a paced stream, and the events that carry it, send compared with the final HTML, and proves
/// the bounds.
@Suite struct EfficiencyTests {
    /// A ~20 KB reply made of the corpus's LLM-style replies, optionally only those without brackets (an unresolved
    /// `[x]` holds every later block in the tail until the end, since a reference definition could still follow).
    private static func twentyKilobyteReply(bracketFree: Bool) -> String {
        let replies = MarkdownCorpus.replies.filter {
            !bracketFree || !MarkdownRenderer.html($0).contains(where: "[]".contains)
        }
        var random = SplitMix64(seed: 20)
        var document = ""
        while document.utf8.count < 20_000 {
            document += replies.randomElement(using: &random)! + "\n\n"
        }
        return document
    }

    @Test(arguments: [true, false])
    func twentyKilobytesInFourCharacterDeltasCostAtMostThreeTimesTheHTML(bracketFree: Bool) {
        let document = Self.twentyKilobyteReply(bracketFree: bracketFree)
        let deltas = Chunkings.fixedSize(document, characters: 4)
        // The worst case: an event after every delta (the server sends at most one every 30 ms).
        let totals = StreamingHarness.pacedStream(deltas)
        let finalSize = MarkdownRenderer.html(document).utf8.count
        let ratio = Double(totals.emitted) / Double(finalSize)
        print(
            "ParleyMarkdown efficiency (bracket-free: \(bracketFree)): \(document.utf8.count) bytes of markdown in "
                + "\(deltas.count) deltas, emitted \(totals.emitted) bytes of HTML for a \(finalSize)-byte result (ratio \(ratio))"
        )
        #expect(totals.appended <= finalSize)
        #expect(ratio <= 3)
    }

    @Test func aChangedTailWaitsUntilTheTextPaysForIt() {
        var stream = MarkdownStream()
        stream.append("A paragraph that keeps")
        #expect(stream.next(final: false) == StreamedHTML(append: "", tail: "<p>A paragraph that keeps</p>\n"))
        stream.append(" on")
        #expect(stream.next(final: false) == StreamedHTML(append: "", tail: nil))
        #expect(stream.isHoldingTail)
        // Each source byte earns one and a half tail bytes: 15 half bytes were left, these 60 bytes earn 180, and the
        // 93-byte tail costs 186.
        let growing = " and growing and growing and growing and growing and growing"
        stream.append(growing)
        #expect(
            stream.next(final: false) == StreamedHTML(append: "", tail: "<p>A paragraph that keeps on\(growing)</p>\n"))
        #expect(!stream.isHoldingTail)
        stream.append(".")
        #expect(stream.next(final: false).tail == nil)
        #expect(
            stream.next(final: true) == StreamedHTML(append: "", tail: "<p>A paragraph that keeps on\(growing).</p>\n"))
        #expect(stream.next(final: true) == StreamedHTML(append: "", tail: nil))
    }

    @Test func aCommittedBlockAlwaysComesWithTheNewTail() {
        var stream = MarkdownStream()
        stream.append("First paragraph, long enough to be worth holding back.")
        _ = stream.next(final: false)
        stream.append("\n\nSecond\n")
        #expect(
            stream.next(final: false)
                == StreamedHTML(
                    append: "<p>First paragraph, long enough to be worth holding back.</p>\n",
                    tail: "<p>Second</p>\n"))
    }

    /// The bytes of a reply's `start` and `token` frames as one stream sends them, the reply arriving as 4-character
    /// tokens `tokensPerSecond` apart and going out as the server coalesces them (an event at most every 30 ms, the
    /// first at once, the last at the end); expects the appends and the last tail to make the final HTML.
    private static func eventBytes(_ document: String, tokensPerSecond: Double) -> Int {
        let reply: MessageID = 100_000
        var stream = MarkdownStream()
        var bytes = StreamEvent.start(messageID: reply, model: "gpt-4o-mini")
            .frame(id: EventID(messageID: reply, sequence: 1)).utf8.count
        var sequence: Int64 = 1
        var unsent = "", appended = "", tail = ""
        var lastEvent = -Double.infinity
        let deltas = Chunkings.fixedSize(document, characters: 4)
        for (index, delta) in deltas.enumerated() {
            stream.append(delta)
            unsent += delta
            let now = Double(index) / tokensPerSecond
            let isLast = index == deltas.count - 1
            guard now - lastEvent >= 0.030 || isLast else { continue }
            let html = stream.next(final: isLast)
            sequence += 1
            bytes +=
                StreamEvent.token(messageID: reply, text: unsent, html: html)
                .frame(id: EventID(messageID: reply, sequence: sequence), replyNamed: true).utf8.count
            appended += html.append
            tail = html.tail ?? tail
            unsent = ""
            lastEvent = now
        }
        #expect(appended + tail == MarkdownRenderer.html(document))
        return bytes
    }

    /// Ordinary replies: two of about 20 KB (with and without brackets), and the corpus's short hand-written ones.
    private static let ordinaryReplies: [(name: String, documents: [String])] = [
        ("long", [twentyKilobyteReply(bracketFree: true), twentyKilobyteReply(bracketFree: false)]),
        ("short", MarkdownCorpus.replies),
    ]

    /// The figures, and those of the heavier frames before, are in docs/BENCHMARKS.md. No frame can bring this to 2: the
    /// appends (the final HTML, JSON-escaped) and the raw text alone come to about 1.8 times the HTML.
    @Test(arguments: [(0, 400.0, 3.75), (1, 400, 3.75), (0, 100, 5.25), (1, 100, 5.0)])
    func eventsOfOrdinaryRepliesCostABoundedMultipleOfTheirHTML(corpus: Int, tokensPerSecond: Double, bound: Double) {
        let (name, documents) = Self.ordinaryReplies[corpus]
        let sent = documents.map { Self.eventBytes($0, tokensPerSecond: tokensPerSecond) }.reduce(0, +)
        let final = documents.map { MarkdownRenderer.html($0).utf8.count }.reduce(0, +)
        let ratio = Double(sent) / Double(final)
        print("\(name) replies at \(Int(tokensPerSecond)) tokens a second: start and token events \(ratio) × the HTML")
        #expect(ratio <= bound)
    }

    @Test("a token frame's fixed part (all but its text) is at most 40 bytes while ids take six characters")
    func aTokenFramesFixedPartIsAtMostFortyBytes() {
        let html = StreamedHTML(append: "", tail: nil)
        // Message ids under 62³ and sequences under 62² (a reply of up to 3,843 events) are three and two digits.
        for (reply, sequence) in [(MessageID(1), Int64(2)), (238_327, 3_843), (238_328, 3_843)] {
            let frame = StreamEvent.token(messageID: reply, text: "x", html: html)
                .frame(id: EventID(messageID: reply, sequence: sequence), replyNamed: true)
            let fixed = frame.utf8.count - 1
            #expect(fixed <= (reply < 238_328 ? 40 : 41), "\(frame.debugDescription)")
        }
    }
}
