import ParleyMarkdown
import Testing

/// The GFM features Parley enables render as expected.
@Suite struct RenderingFeatureTests {
    @Test func tableWithAlignment() {
        let html = MarkdownRenderer.html("| L | C | R |\n|:--|:-:|--:|\n| a | `x \\| y` | c |\n")
        #expect(
            html == """
                <table>
                <thead>
                <tr>
                <th align="left">L</th>
                <th align="center">C</th>
                <th align="right">R</th>
                </tr>
                </thead>
                <tbody>
                <tr>
                <td align="left">a</td>
                <td align="center"><code>x | y</code></td>
                <td align="right">c</td>
                </tr>
                </tbody>
                </table>

                """)
    }

    @Test func strikethrough() {
        #expect(MarkdownRenderer.html("~~gone~~ and ~also~") == "<p><del>gone</del> and <del>also</del></p>\n")
    }

    @Test func autolinks() {
        #expect(
            MarkdownRenderer.html("Visit www.example.com, https://swift.org/x?y=1 or me@example.com")
                == "<p>Visit <a href=\"http://www.example.com\">www.example.com</a>, "
                + "<a href=\"https://swift.org/x?y=1\">https://swift.org/x?y=1</a> or "
                + "<a href=\"mailto:me@example.com\">me@example.com</a></p>\n")
    }

    @Test func taskListCheckboxes() {
        #expect(
            MarkdownRenderer.html("- [ ] todo\n- [x] done\n") == """
                <ul>
                <li><input type="checkbox" aria-label="todo" disabled="" /> todo</li>
                <li><input type="checkbox" aria-label="done" checked="" disabled="" /> done</li>
                </ul>

                """)
    }

    @Test func fencedCodeWithLanguageClassIsHighlighted() {
        #expect(
            MarkdownRenderer.html("```swift\nlet x = [1] < 2\n```\n")
                == "<pre><code class=\"language-swift\"><span class=\"hl-keyword\">let</span> x = [<span"
                + " class=\"hl-number\">1</span>] &lt; <span class=\"hl-number\">2</span>\n</code></pre>\n")
    }

    @Test func anOpenCodeBlockIsHighlightedOnceFinal() {
        var stream = MarkdownStream()
        stream.append("```swift\nlet x = 1\n")
        let open = stream.next(final: false)
        #expect(open.tail == "<pre><code class=\"language-swift\">let x = 1\n</code></pre>\n")
        stream.append("```\n\nDone.\n")
        let closed = stream.next(final: false)
        #expect(closed.append.hasPrefix(#"<pre><code class="language-swift"><span class="hl-keyword">let</span>"#))
        stream.append("More")
        #expect(stream.next(final: true).tail == "<p>Done.\nMore</p>\n")
    }

    @Test func codeInALanguageNoOneKnowsStaysAsCmarkWroteIt() {
        #expect(
            MarkdownRenderer.html("```klingon\nqapla' < 2\n```\n")
                == "<pre><code class=\"language-klingon\">qapla' &lt; 2\n</code></pre>\n")
    }

    @Test func aMathBlockIsADisplayedFormula() {
        #expect(
            MarkdownRenderer.html("```math\na_1 < b^*\n```\n")
                == "<pre><code class=\"math math-display\">a_1 &lt; b^*\n</code></pre>\n")
    }

    @Test func rawHTMLIsOmittedAndTextEscaped() {
        #expect(
            MarkdownRenderer.html("<div>\nhi\n</div>\n\na <b>b</b> & c")
                == "<!-- raw HTML omitted -->\n<p>a <!-- raw HTML omitted -->b<!-- raw HTML omitted --> &amp; c</p>\n")
    }

    @Test func orderedListStartAndHardBreak() {
        #expect(
            MarkdownRenderer.html("3. three\n4. four\n\na  \nb") == """
                <ol start="3">
                <li>three</li>
                <li>four</li>
                </ol>
                <p>a<br />
                b</p>

                """)
    }
}
