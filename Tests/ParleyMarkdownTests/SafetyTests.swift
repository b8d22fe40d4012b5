import ParleyMarkdown
import Testing

/// Markdown and raw-HTML attack payloads must render to HTML without script, handlers or dangerous URLs.
@Suite struct SafetyTests {
    static let payloads: [String] = [
        "<script>alert(1)</script>",
        "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
        "Inline <script>alert(1)</script> in a paragraph.",
        "<img src=x onerror=alert(1)>",
        "Text <img src=x onerror=alert(1)> inline",
        "<IMG SRC=JaVaScRiPt:alert('XSS')>",
        "<img src=\"x\" onerror=\"alert(1)\"/>",
        "<svg onload=alert(1)>",
        "<svg><script>alert(1)</script></svg>",
        "<iframe src=\"javascript:alert(1)\"></iframe>",
        "<a href=\"javascript:alert(1)\">x</a>",
        "<a href=\"&#x6A;avascript:alert(1)\">x</a>",
        "<a href=\"https://example.com\" onclick=\"alert(1)\">x</a>",
        "<body onload=alert(1)>",
        "<div style=\"background:url(javascript:alert(1))\">\n\ntext\n\n</div>",
        "<math><mi xlink:href=\"javascript:alert(1)\">x</mi></math>",
        "<object data=\"javascript:alert(1)\"></object>",
        "<embed src=\"javascript:alert(1)\">",
        "<form action=\"javascript:alert(1)\"><button>x</button></form>",
        "<input onfocus=alert(1) autofocus>",
        "<details open ontoggle=alert(1)>",
        "<style>@import 'javascript:alert(1)';</style>",
        "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
        "<base href=\"javascript:alert(1)//\">",
        "<<script>script>alert(1)<</script>/script>",
        "<scr<script>ipt>alert(1)</script>",
        "<img src=x onerror=alert(1)//",
        "Unclosed <a href=\"javascript:alert(1)\"",
        "<!--<script>alert(1)</script>-->",
        "<![CDATA[<script>alert(1)</script>]]>",
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](javascript&#58;alert(1))",
        "[x](javascript&colon;alert(1))",
        "[x](&#106;avascript:alert(1))",
        "[x](&#x6A;avascript:alert(1))",
        "[x](java&#x09;script:alert(1))",
        "[x](java&#10;script:alert(1))",
        "[x](java&Tab;script:alert(1))",
        "[x](<java script:alert(1)>)",
        "[x]( javascript:alert(1))",
        "[x](%6Aavascript:alert(1))",
        "[x](<\u{1}javascript:alert(1)>)",
        "[x](<\u{7F}javascript:alert(1)>)",
        "[x](\u{0}javascript:alert(1))",
        "[x](vbscript:msgbox(1))",
        "[x](VBScript:msgbox(1))",
        "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "[x](data:text/html,<script>alert(1)</script>)",
        "[x](file:///etc/passwd)",
        "![x](javascript:alert(1))",
        "![x](JAVASCRIPT:alert(1))",
        "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
        "![x](data:image/svg+xml,<svg/onload=alert(1)>)",
        "![x](x\" onerror=\"alert(1))",
        "![x \" onerror=\"alert(1)](https://example.com/x.png)",
        "[x](https://example.com/\"onmouseover=\"alert(1))",
        "[x](https://example.com \"t\\\" onmouseover=\\\"alert(1)\")",
        "[x][ref]\n\n[ref]: javascript:alert(1)",
        "[ref]\n\n[ref]: JAVASCRIPT:alert(1) \"title\"",
        "![img][r]\n\n[r]: data:text/html,<script>alert(1)</script>",
        "[x][r]\n\n[r]: <java\u{9}script:alert(1)>",
        "<javascript:alert(1)>",
        "<JavaScript:alert(1)>",
        "<vbscript:msgbox(1)>",
        "<data:text/html,alert(1)>",
        "<file:///etc/passwd>",
        "<https://example.com/\"onmouseover=\"alert(1)>",
        "www.example.com\"onmouseover=\"alert(1)",
        "- [ ] <img src=x onerror=alert(1)>\n- [x] <script>alert(1)</script>",
        "| a |\n|---|\n| <script>alert(1)</script> |\n| <img src=x onerror=alert(1)> |",
        "~~<script>alert(1)</script>~~",
        "# <img src=x onerror=alert(1)>",
        "[<img src=x onerror=alert(1)>](https://example.com)",
        "![<svg onload=alert(1)>](https://example.com/x.png)",
        "> <iframe src=//evil.example></iframe>",
        "```html\n<script>alert(1)</script>\n```",
        "`<script>alert(1)</script>`",
        "<textarea><script>alert(1)</script></textarea>",
        "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
    ]

    @Test func payloadsRenderSafely() {
        #expect(Self.payloads.count >= 50)
        for payload in Self.payloads {
            let html = MarkdownRenderer.html(payload)
            #expect(HTMLSafetyScanner.violations(in: html).isEmpty, "\(payload.debugDescription) → \(html)")
        }
    }

    @Test func payloadsStayDangerousFreeWhenStreamed() {
        for payload in Self.payloads {
            var renderer = IncrementalMarkdownRenderer()
            for delta in Chunkings.characters(payload) {
                renderer.append(delta)
                let update = renderer.render()
                #expect(
                    HTMLSafetyScanner.violations(in: update.append + update.tail).isEmpty, "\(payload.debugDescription)"
                )
            }
        }
    }

    @Test func dangerousLinksAreBlankedButSafeOnesKept() {
        #expect(MarkdownRenderer.html("[x](javascript:alert(1))") == "<p><a href=\"\">x</a></p>\n")
        #expect(MarkdownRenderer.html("![x](data:image/svg+xml;base64,AAAA)") == "<p><img src=\"\" alt=\"x\" /></p>\n")
        #expect(
            MarkdownRenderer.html("![x](data:image/png;base64,AAAA)")
                == "<p><img src=\"data:image/png;base64,AAAA\" alt=\"x\" /></p>\n")
        #expect(
            MarkdownRenderer.html("[x](https://example.com/a?b=c#d)")
                == "<p><a href=\"https://example.com/a?b=c#d\">x</a></p>\n")
        #expect(
            MarkdownRenderer.html("[x](/relative/path:with-colon)")
                == "<p><a href=\"/relative/path:with-colon\">x</a></p>\n")
        #expect(
            MarkdownRenderer.html("[x](mailto:someone@example.com)")
                == "<p><a href=\"mailto:someone@example.com\">x</a></p>\n")
        #expect(MarkdownRenderer.html("<script>alert(1)</script>") == "<!-- raw HTML omitted -->\n")
    }

    @Test func scannerCatchesWhatItShould() {
        #expect(!HTMLSafetyScanner.violations(in: "<script>x</script>").isEmpty)
        #expect(!HTMLSafetyScanner.violations(in: "<a href=\"java&#x73;cript&colon;x\">").isEmpty)
        #expect(!HTMLSafetyScanner.violations(in: "<img src=\"x\" onerror=\"y\" />").isEmpty)
        #expect(!HTMLSafetyScanner.violations(in: "<a href=\" JaVa\tScRiPt:x\">").isEmpty)
        #expect(!HTMLSafetyScanner.violations(in: "<video src=x>").isEmpty)
        #expect(HTMLSafetyScanner.violations(in: "<p>javascript:alert(1) as text &lt;script&gt;</p>").isEmpty)
    }
}
