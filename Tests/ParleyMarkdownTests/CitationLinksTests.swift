import ParleyMarkdown
import Testing

/// A reply's `[n]` citations become links to their sources in its rendered HTML, and nothing else does.
@Suite struct CitationLinksTests {
    let links = [1: "/documents/4#page=7", 2: "/documents/5"]

    @Test("citations in prose become links, the brackets kept; lists of numbers link each")
    func prose() {
        let html = MarkdownRenderer.html("The code is zebra [1]. Both agree [1, 2] and [2,1].")
        let (one, two) = (CitationLinks.link(1, to: links[1]!), CitationLinks.link(2, to: links[2]!))
        #expect(
            CitationLinks.html(html, links: links)
                == "<p>The code is zebra [\(one)]. Both agree [\(one), \(two)] and [\(two), \(one)].</p>\n")
        #expect(one == "<a class=\"citation\" href=\"/documents/4#page=7\" target=\"_blank\" rel=\"noopener\">1</a>")
    }

    @Test("code, links, unknown numbers and other brackets are left as they are")
    func untouched() {
        for markdown in [
            "`[1]` in code", "```\n[1]\n```", "[1](https://example.com)", "source [3] is unknown", "[1, 3] partly",
            "array[1]x", "[x1]", "[]", "[12345]", "[1",
        ] {
            let html = MarkdownRenderer.html(markdown)
            let linked = CitationLinks.html(html, links: links)
            if markdown == "array[1]x" {
                #expect(linked.contains("class=\"citation\""), "a citation right after a word still cites")
            } else {
                #expect(linked == html, "\(markdown)")
            }
        }
    }

    @Test("without sources the HTML is returned unchanged, tags and entities included")
    func noSources() {
        let html = MarkdownRenderer.html("a <b>[1]</b> &amp; [2]")
        #expect(CitationLinks.html(html, links: [:]) == html)
    }
}
