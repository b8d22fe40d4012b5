import Foundation
import Testing

@testable import ParleyMarkdown

/// Formulas are found before markdown reads them, only outside code, and never in ordinary prices.
@Suite struct MathRenderingTests {
    private static func inline(_ source: String) -> String { #"<code class="math math-inline">"# + source + "</code>" }
    private static func display(_ source: String) -> String {
        #"<code class="math math-display">"# + source + "</code>"
    }

    @Test func dollarFormulaKeepsUnderscoresAndStars() {
        #expect(
            MarkdownRenderer.html("Let $x_1 * y_2 = z_3$ hold.")
                == "<p>Let \(Self.inline("x_1 * y_2 = z_3")) hold.</p>\n")
    }

    @Test func doubleDollarFormulaIsDisplayed() {
        #expect(
            MarkdownRenderer.html("$$\n\\sum_{i=1}^n a_i\n$$") == "<p>\(Self.display("\n\\sum_{i=1}^n a_i\n"))</p>\n")
        #expect(MarkdownRenderer.html("Then $$a_b$$ follows.") == "<p>Then \(Self.display("a_b")) follows.</p>\n")
    }

    @Test func bracketDelimitersAreFormulas() {
        #expect(MarkdownRenderer.html(#"So \(a_b^*\) and"#) == "<p>So \(Self.inline("a_b^*")) and</p>\n")
        #expect(
            MarkdownRenderer.html("\\[\nx = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}\n\\]")
                == "<p>\(Self.display("\nx = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}\n"))</p>\n")
    }

    @Test func pricesStayProse() {
        for text in [
            "It costs $5 and $10.", "Pay $5, $10 or $15 today.", "From US$5 to US$10.", "A lone $ sign.",
            "$ x $ spaced",
            "Escaped \\$5 and \\$6.",
        ] {
            #expect(!MarkdownRenderer.html(text).contains("math"), "\(text)")
        }
        #expect(MarkdownRenderer.html("Spend $5 on $x^2$.") == "<p>Spend $5 on \(Self.inline("x^2")).</p>\n")
    }

    @Test func codeKeepsItsDollarsAndBackslashes() {
        #expect(
            MarkdownRenderer.html("`$x_1$` and `\\(y\\)`") == "<p><code>$x_1$</code> and <code>\\(y\\)</code></p>\n")
        #expect(
            MarkdownRenderer.html("```\necho $HOME \\(x\\) \\[y\\]\n```")
                == "<pre><code>echo $HOME \\(x\\) \\[y\\]\n</code></pre>\n")
        #expect(
            MarkdownRenderer.html("    indented $a_b$ \\(c\\)") == "<pre><code>indented $a_b$ \\(c\\)\n</code></pre>\n")
    }

    @Test func unmatchedEscapedBracketsStayEscapes() {
        #expect(
            MarkdownRenderer.html(#"A \( alone, \] too, and \\(x\\)."#) == "<p>A ( alone, ] too, and \\(x\\).</p>\n")
        #expect(MarkdownRenderer.html(#"[a](b\(c "t\)")"#) == "<p><a href=\"b(c\" title=\"t)\">a</a></p>\n")
        #expect(MarkdownRenderer.html(#"\[not a link](x)"#).hasPrefix("<p>[not a link](x)"))
    }

    @Test func formulasSitInsideEmphasisAndLinks() {
        #expect(MarkdownRenderer.html("*see $a*b$*") == "<p><em>see \(Self.inline("a*b"))</em></p>\n")
        #expect(
            MarkdownRenderer.html("[$x$](https://e.org)")
                == "<p><a href=\"https://e.org\">\(Self.inline("x"))</a></p>\n")
    }

    @Test func formulasInTableCellsTaskItemsAndImageTexts() {
        #expect(
            MarkdownRenderer.html("| $a_1$ |\n| --- |\n| $b$ |\n").contains(
                "<th>\(Self.inline("a_1"))</th>"))
        #expect(MarkdownRenderer.html("- [ ] solve $x^2$\n").contains(#"aria-label="solve x^2""#))
        #expect(MarkdownRenderer.html("![area $r^2$](a.png)") == "<p><img src=\"a.png\" alt=\"area r^2\" /></p>\n")
    }

    @Test func formulaSourceIsEscaped() {
        #expect(
            MarkdownRenderer.html(#"$a<b \text{"&"}$"#) == "<p>\(Self.inline("a&lt;b \\text{&quot;&amp;&quot;}"))</p>\n"
        )
        #expect(!MarkdownRenderer.html("$</code><script>alert(1)</script>$").contains("<script>"))
    }

    @Test func unclosedDisplayFormulaStaysInTheTail() {
        var stream = MarkdownStream()
        stream.append("Intro.\n\n$$\na_b\n\nmore")
        let open = stream.next(final: false)
        #expect(open.append == "<p>Intro.</p>\n")
        stream.append("\n$$\n\nAfter.\n")
        let closed = stream.next(final: true)
        #expect(closed.append + (closed.tail ?? "") == "<p>$$\na_b</p>\n<p>more\n$$</p>\n<p>After.</p>\n")
    }

    /// Random texts made of formula delimiters, markdown punctuation and line breaks, streamed in random pieces.
    @Test(arguments: 0..<200)
    func randomFormulaTextsStreamToTheOneShotRender(seed: Int) {
        let alphabet = [
            "$", "$$", "\\(", "\\)", "\\[", "\\]", "\\", "`", "_", "*", "a", "5", " ", "\n", "\n\n", "- ", "> ",
            "```\n", "    ",
        ]
        var random = SplitMix64(seed: UInt64(seed) &+ 0xD011A5)
        let text = (0..<Int.random(in: 5...60, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            .joined()
        StreamingHarness.stream(Chunkings.characters(text))
        StreamingHarness.stream(Chunkings.randomSizes(text, using: &random))
    }

    @Test func paragraphsOfOpenersAreReadInLinearTime() {
        let hostile = [
            String(repeating: "$a ", count: 30_000), String(repeating: "$$a ", count: 30_000),
            String(repeating: "\\(a ", count: 30_000), String(repeating: "\\[a ", count: 30_000),
        ]
        for text in hostile {
            let started = ContinuousClock.now
            _ = MarkdownRenderer.html(text)
            #expect(ContinuousClock.now - started < .seconds(2), "\(text.prefix(8))")
        }
    }
}
