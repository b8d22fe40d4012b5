import ParleyMarkdown
import Testing

/// Measures how much HTML streaming sends compared with the final HTML.
@Suite struct EfficiencyTests {
    @Test func twentyKilobytesInFourCharacterDeltas() {
        // Replies whose HTML has no brackets: an unresolved `[x]` holds back everything after it until the end (a
        // reference definition could still follow), so every render would re-send the whole rest.
        let replies = MarkdownCorpus.replies.filter { !MarkdownRenderer.html($0).contains(where: "[]".contains) }
        var random = SplitMix64(seed: 20)
        var document = ""
        while document.utf8.count < 20_000 {
            document += replies.randomElement(using: &random)! + "\n\n"
        }
        let deltas = Chunkings.fixedSize(document, characters: 4)
        let totals = StreamingHarness.stream(deltas)
        let finalSize = MarkdownRenderer.html(document).utf8.count
        let ratio = Double(totals.emitted) / Double(finalSize)
        print("ParleyMarkdown efficiency: \(document.utf8.count) bytes of markdown in \(deltas.count) deltas, "
            + "emitted \(totals.emitted) bytes of HTML for a \(finalSize)-byte result (ratio \(ratio))")
        #expect(totals.appended <= finalSize)
    }
}
