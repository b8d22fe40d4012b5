import Foundation
import ParleyMarkdown
import Testing

/// Every task list checkbox carries its item's text as `aria-label` (escaped, cut when long), in the one-shot HTML and
/// in the streamed HTML alike.
@Suite struct TaskListLabelTests {
    /// The unescaped `aria-label` of each checkbox in `html`, in order.
    private static func labels(in html: String) -> [String] {
        html.components(separatedBy: #"<input type="checkbox" aria-label=""#).dropFirst().map { piece in
            String(piece.prefix { $0 != "\"" }).replacingOccurrences(of: "&quot;", with: "\"")
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&amp;", with: "&")
        }
    }

    /// The number of checkboxes in `html`, named or not.
    private static func checkboxCount(in html: String) -> Int {
        html.components(separatedBy: #"<input type="checkbox""#).count - 1
    }

    @Test func eachCheckboxIsNamedByItsItemsPlainText() {
        let html = MarkdownRenderer.html(
            """
            - [x] Read **the** [guide](https://example.com) and run `swift test`
            - [ ] Line one
              continues here
            1. [ ] A numbered task
            """)
        #expect(
            Self.labels(in: html) == [
                "Read the guide and run swift test", "Line one continues here", "A numbered task",
            ])
        #expect(
            html.contains(
                #"<li><input type="checkbox" aria-label="Read the guide and run swift test" checked="" disabled="" /> Read"#
            ))
    }

    @Test func quotesAndMarkupCharactersAreEscapedInTheName() {
        let html = MarkdownRenderer.html(#"- [ ] Say "hi" & 'bye' <b>now</b>, a < b > c"# + "\n")
        #expect(html.contains(#"aria-label="Say &quot;hi&quot; &amp; 'bye' now, a &lt; b &gt; c" disabled="""#))
        #expect(HTMLSafetyScanner.violations(in: html).isEmpty, "\(html)")
    }

    @Test func checkboxMarkupWrittenInAnItemIsNotMistakenForACheckbox() {
        let html = MarkdownRenderer.html(#"- [ ] `<input type="checkbox" disabled="" />` is the markup"# + "\n")
        #expect(Self.checkboxCount(in: html) == 1)
        #expect(Self.labels(in: html) == [#"<input type="checkbox" disabled="" /> is the markup"#])
    }

    @Test func aLongTextIsCutInTheNameButNotInTheItem() throws {
        let text = String(repeating: "very long words ", count: 500)
        let html = MarkdownRenderer.html("- [ ] \(text)\n")
        let label = try #require(Self.labels(in: html).first)
        #expect(label.count == 100 && label.hasSuffix("…"))
        #expect(label.dropLast() == text.prefix(99))
        #expect(html.contains(text.trimmingCharacters(in: .whitespaces) + "</li>"))
    }

    @Test func nestedListsNameEachItemByItsOwnText() {
        let html = MarkdownRenderer.html(
            """
            - [ ] Outer task
              - [x] Inner task
                - [ ] Innermost
            - Plain item
              - [ ] Task under a plain item
            - [ ] Task over a plain list
              - not a task
            """)
        #expect(
            Self.labels(in: html) == [
                "Outer task", "Inner task", "Innermost", "Task under a plain item",
                "Task over a plain list",
            ])
        #expect(html.contains("<li>not a task</li>"))
    }

    @Test func blocksAreSeparatedAndAnItemWithoutTextIsStillNamed() {
        let html = MarkdownRenderer.html(
            """
            - [ ] First paragraph.

              Second paragraph.
            - [x] ![a cat](https://example.com/cat.png)
            - [ ] ![](https://example.com/x.png)
            """)
        #expect(Self.labels(in: html) == ["First paragraph. Second paragraph.", "a cat", "Task"])
    }

    @Test func everyCheckboxOfTheCorpusIsNamed() {
        for document in MarkdownCorpus.documents {
            let html = MarkdownRenderer.html(document)
            #expect(Self.labels(in: html).count == Self.checkboxCount(in: html), "\(document.debugDescription)")
        }
    }

    @Test func streamedHTMLCarriesTheSameNamesUnderAnySlicing() {
        let document = """
            Before the list.

            - [x] Ship "v2" <today> & tell 👩‍💻 about it
              - [ ] A nested step with `code`
            - [ ] \(String(repeating: "long ", count: 60))

            1. [ ] Numbered, with a [link](https://example.com)
            """
        #expect(Self.labels(in: MarkdownRenderer.html(document)).count == 4)
        var random = SplitMix64(seed: 43)
        StreamingHarness.stream(Chunkings.characters(document))
        StreamingHarness.stream(Chunkings.scalars(document))
        StreamingHarness.stream(Chunkings.lines(document))
        StreamingHarness.stream(Chunkings.randomSizes(document, using: &random))
        StreamingHarness.pacedStream(Chunkings.fixedSize(document, characters: 4))
    }
}
