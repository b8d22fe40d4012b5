import ParleyMarkdown
import Testing

/// Property tests: concatenated appends plus the last tail equal the one-shot render, however the text is cut.
@Suite struct StreamingInvariantTests {
    /// Longer documents get their one-character and one-scalar deltas rendered only every few deltas, which keeps
    /// the debug-build run short.
    private static let longDocument = 500

    @Test(arguments: MarkdownCorpus.documents.indices)
    func corpusDocumentStreamsToTheOneShotRender(index: Int) {
        let document = MarkdownCorpus.documents[index]
        var random = SplitMix64(seed: UInt64(index))
        let everyFew = document.utf8.count > Self.longDocument ? Int.random(in: 2...4, using: &random) : 1
        // One render of the whole text: the blocks' HTML concatenated equals the document's HTML.
        StreamingHarness.stream([document])
        StreamingHarness.stream(Chunkings.characters(document), renderEvery: everyFew)
        if document.unicodeScalars.count != document.count {
            StreamingHarness.stream(Chunkings.scalars(document), renderEvery: everyFew)
        }
        StreamingHarness.stream(Chunkings.lines(document))
        StreamingHarness.stream(Chunkings.randomSizes(document, using: &random))
        StreamingHarness.stream(
            Chunkings.randomSizes(document, using: &random),
            renderEvery: Int.random(in: 2...4, using: &random))
        StreamingHarness.stream(Chunkings.scalars(document), renderEvery: Int.random(in: 3...6, using: &random))
    }

    @Test(arguments: MarkdownCorpus.documents.indices)
    func pacedStreamOfACorpusDocumentEndsAtTheOneShotRender(index: Int) {
        let document = MarkdownCorpus.documents[index]
        var random = SplitMix64(seed: UInt64(index) ^ 0xFACE)
        StreamingHarness.pacedStream(Chunkings.randomSizes(document, using: &random))
        StreamingHarness.pacedStream(
            Chunkings.fixedSize(document, characters: 4), eventEvery: Int.random(in: 1...3, using: &random))
    }

    @Test func blocksBecomeFinalOnceALaterBlockStartsOnACompleteLine() {
        var renderer = IncrementalMarkdownRenderer()
        renderer.append("# Title\n\nFirst paragraph.\n\nSecond")
        let first = renderer.render()
        #expect(
            first
                == MarkdownUpdate(
                    append: "<h1>Title</h1>\n",
                    tail: "<p>First paragraph.</p>\n<p>Second</p>\n"))
        #expect(renderer.render() == MarkdownUpdate(append: "", tail: first.tail))
        renderer.append(" line.\n")
        #expect(renderer.render() == MarkdownUpdate(append: "<p>First paragraph.</p>\n", tail: "<p>Second line.</p>\n"))
        #expect(renderer.text == "# Title\n\nFirst paragraph.\n\nSecond line.\n")
    }

    @Test func emptyRendererRendersNothing() {
        var renderer = IncrementalMarkdownRenderer()
        #expect(renderer.render() == MarkdownUpdate(append: "", tail: ""))
    }

    @Test func setextUnderlineAndDelimiterRowStillReshapeTheOpenParagraph() {
        var renderer = IncrementalMarkdownRenderer()
        renderer.append("Intro.\n\nTitle\n")
        #expect(renderer.render() == MarkdownUpdate(append: "<p>Intro.</p>\n", tail: "<p>Title</p>\n"))
        renderer.append("===\n\n| a |\n")
        #expect(renderer.render() == MarkdownUpdate(append: "<h1>Title</h1>\n", tail: "<p>| a |</p>\n"))
        renderer.append("|---|\n")
        #expect(renderer.render().tail.hasPrefix("<table>"))
    }

    @Test func bracketsWaitForALaterDefinition() {
        var renderer = IncrementalMarkdownRenderer()
        renderer.append("See [foo].\n\nMore.\n\nEven more.\n\n")
        #expect(renderer.render().append == "")
        renderer.append("[foo]: /url\n\nDone.\n")
        #expect(renderer.render().append.hasPrefix(#"<p>See <a href="/url">foo</a>.</p>"#))
    }

    @Test func linksWaitWhileADefinitionIsUnfinished() {
        var renderer = IncrementalMarkdownRenderer()
        renderer.append("See [foo].\n\nMore.\n\n[foo]: /url\n")
        #expect(renderer.render().append == "")
        renderer.append("\"Title\"\n\nDone.\n")
        #expect(renderer.render().append == #"<p>See <a href="/url" title="Title">foo</a>.</p>"# + "\n<p>More.</p>\n")
    }

    @Test func definitionsInCommittedTextStillResolveLaterReferences() {
        var renderer = IncrementalMarkdownRenderer()
        var emitted = ""
        for delta in ["[a]: /first\n\n", "- [b]: /in-list\n\nText.\n\n", "Para.\n\n", "Use [a] and [b].\n\nEnd.\n"] {
            renderer.append(delta)
            emitted += renderer.render().append
        }
        let html = emitted + renderer.render().tail
        #expect(html == MarkdownRenderer.html(renderer.text))
        #expect(html.contains(#"<a href="/first">a</a> and <a href="/in-list">b</a>"#))
    }
}
