import ParleyMarkdown
import Testing

/// Property tests: concatenated appends plus the last tail equal the one-shot render, however the text is cut.
@Suite struct StreamingInvariantTests {
    /// Documents longer than this get fewer render-every-delta chunkings to keep debug runs fast.
    private static let longDocument = 1_500

    @Test func oneRenderOfTheWholeTextMatchesTheOneShotRender() {
        for document in MarkdownCorpus.documents {
            StreamingHarness.stream([document])
        }
    }

    @Test func corpusStreamsToTheOneShotRenderForEveryChunking() {
        var random = SplitMix64(seed: 42)
        for document in MarkdownCorpus.documents {
            StreamingHarness.stream(Chunkings.characters(document))
            StreamingHarness.stream(Chunkings.lines(document))
            StreamingHarness.stream(Chunkings.randomSizes(document, using: &random))
            StreamingHarness.stream(Chunkings.scalars(document), renderEvery: Int.random(in: 2...5, using: &random))
            if document.utf8.count <= Self.longDocument {
                StreamingHarness.stream(Chunkings.scalars(document))
                StreamingHarness.stream(Chunkings.randomSizes(document, using: &random),
                                        renderEvery: Int.random(in: 2...4, using: &random))
            }
        }
    }

    @Test func blocksBecomeFinalOnceALaterBlockStartsOnACompleteLine() {
        var renderer = IncrementalMarkdownRenderer()
        renderer.append("# Title\n\nFirst paragraph.\n\nSecond")
        let first = renderer.render()
        #expect(first == MarkdownUpdate(append: "<h1>Title</h1>\n",
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

    @Test func bracketsWaitForALaterDefinition() {
        var renderer = IncrementalMarkdownRenderer()
        renderer.append("See [foo].\n\nMore.\n\nEven more.\n\n")
        #expect(renderer.render().append == "")
        renderer.append("[foo]: /url\n\nDone.\n")
        let update = renderer.render()
        #expect(update.append.hasPrefix(#"<p>See <a href="/url">foo</a>.</p>"#))
    }

    @Test func definitionsInCommittedTextStillResolveLaterReferences() {
        var renderer = IncrementalMarkdownRenderer()
        var emitted = ""
        for delta in ["[a]: /first\n\n", "- [b]: /in-list\n\nText.\n\n", "Para.\n\n", "Use [a] and [b].\n\nEnd.\n"] {
            renderer.append(delta)
            emitted += renderer.render().append
        }
        let last = renderer.render()
        #expect(emitted + last.tail == MarkdownRenderer.html(renderer.text))
        #expect((emitted + last.tail).contains(#"<a href="/first">a</a> and <a href="/in-list">b</a>"#))
    }
}
