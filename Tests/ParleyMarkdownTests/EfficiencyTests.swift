import ParleyMarkdown
import Testing

/// Measures how much HTML a paced stream sends compared with the final HTML, and proves the bound.
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
}
