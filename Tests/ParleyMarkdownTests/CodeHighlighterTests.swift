import Foundation
import Testing

@testable import ParleyMarkdown

/// The server-side highlighter: each language's tokens get their classes; whatever the input, the output is cmark's
/// escaped code with well-formed spans added; language names resolve with their aliases.
@Suite struct CodeHighlighterTests {
    /// A classed run of highlighted code: its class without `hl-`, and its text unescaped.
    struct Run: Equatable, CustomStringConvertible {
        let kind: String
        let text: String

        init(_ kind: String, _ text: String) {
            self.kind = kind
            self.text = text
        }

        var description: String { "\(kind)(\(text.debugDescription))" }
    }

    /// A snippet in one language, runs its highlighting must have, and texts that must not be inside any run.
    struct Sample: Sendable, CustomTestStringConvertible {
        let language: String
        let code: String
        let runs: [(String, String)]
        var unclassed: [String] = []

        var testDescription: String { language }
    }

    /// One name for each grammar.
    static let languages = [
        "python", "javascript", "typescript", "java", "c", "cpp", "csharp", "go", "rust", "swift", "kotlin", "ruby",
        "php",
        "bash", "powershell", "sql", "html", "css", "scss", "json", "yaml", "toml", "ini", "markdown", "dockerfile",
        "makefile", "lua", "perl", "r", "scala", "dart", "haskell", "elixir", "objc", "diff", "graphql", "hcl", "zig",
        "protobuf", "console",
    ]

    static let samples: [Sample] = [
        Sample(
            language: "python",
            code: #"""
                #!/usr/bin/env python3
                @app.route("/x")
                def greet(name: str = "a # b") -> None:
                    """Doc with 'quotes' and # hash"""
                    # it's a comment
                    return f"{name}!" if name else None
                """#,
            runs: [
                ("meta", "#!/usr/bin/env python3"), ("meta", "@app.route"), ("keyword", "def"), ("function", "greet"),
                ("type", "str"), ("string", #""a # b""#), ("string", #""""Doc with 'quotes' and # hash""""#),
                ("comment", "# it's a comment"), ("string", #"f"{name}!""#), ("literal", "None"),
            ]),
        Sample(
            language: "javascript",
            code: """
                const re = /[/"]+/g, half = total / 2 / 1;
                const msg = `Hi ${user.name} ${`inner ${n}`}!`; // done
                class App extends Base { render() { return this.$el ?? null; } }
                """,
            runs: [
                ("keyword", "const"), ("string", #"/[/"]+/g"#), ("number", "2"), ("string", "`Hi ${"),
                ("comment", "// done"), ("keyword", "class"), ("type", "App"), ("function", "render"),
                ("keyword", "this"), ("literal", "null"),
            ],
            unclassed: ["user.name", "total", "$el"]),
        Sample(
            language: "typescript",
            code: """
                interface User { id: number; name?: string }
                function f<T>(x: T): T { return x as T; }
                """,
            runs: [
                ("keyword", "interface"), ("type", "User"), ("type", "number"), ("type", "string"),
                ("function", "f"), ("keyword", "as"),
            ]),
        Sample(
            language: "java",
            code: """
                @Override
                public String toString() { char c = '"'; return "P(" + x + ")"; } // end
                """,
            runs: [
                ("meta", "@Override"), ("keyword", "public"), ("type", "String"), ("function", "toString"),
                ("type", "char"), ("string", #"'"'"#), ("string", #""P(""#), ("comment", "// end"),
            ]),
        Sample(
            language: "c",
            code: #"""
                #include <stdio.h>
                /* block "comment" */
                int main(void) { printf("%d\n", 0x1F); return '\''; }
                """#,
            runs: [
                ("meta", "#include"), ("string", "<stdio.h>"), ("comment", #"/* block "comment" */"#), ("type", "int"),
                ("function", "main"), ("function", "printf"), ("string", #""%d\n""#), ("number", "0x1F"),
                ("string", #"'\''"#),
            ]),
        Sample(
            language: "cpp",
            code: """
                auto s = R"(a "quoted" )" + std::string("x");
                long n = 1'000'000; Widget* w = nullptr;
                """,
            runs: [
                ("type", "auto"), ("string", #"R"(a "quoted" )""#), ("number", "1'000'000"), ("type", "Widget"),
                ("literal", "nullptr"),
            ]),
        Sample(
            language: "csharp",
            code: #"""
                #region Helpers
                public record Point(int X) { string p = @"C:\dir\"; var s = $"v={X}"; }
                """#,
            runs: [
                ("meta", "#region"), ("keyword", "public"), ("keyword", "record"), ("type", "Point"), ("type", "int"),
                ("string", #"@"C:\dir\""#), ("string", #"$"v={X}""#),
            ]),
        Sample(
            language: "go",
            code: #"""
                func (p *Point) Dist() float64 { s := `raw "x" \n`; r := 'x'; return nil }
                """#,
            runs: [
                ("keyword", "func"), ("function", "Dist"), ("type", "float64"), ("string", #"`raw "x" \n`"#),
                ("string", "'x'"), ("literal", "nil"),
            ]),
        Sample(
            language: "rust",
            code: ##"""
                /* outer /* inner */ still outer */
                #[derive(Debug)]
                fn main() { let s = r#"a "b" c"#; let l: &'a str = "x"; println!("{}", 'c'); }
                """##,
            runs: [
                ("comment", "/* outer /* inner */ still outer */"), ("meta", "#[derive(Debug)]"), ("keyword", "fn"),
                ("function", "main"), ("string", ##"r#"a "b" c"#"##), ("type", "str"), ("function", "println!"),
                ("string", "'c'"),
            ],
            unclassed: ["'a"]),
        Sample(
            language: "swift",
            code: ##"""
                /* a /* nested */ comment */
                @MainActor func load(id: Int) -> String { "id \(id + 1) \"q\"" }
                let r = #"raw \(no) "x""#
                #if DEBUG
                """##,
            runs: [
                ("comment", "/* a /* nested */ comment */"), ("meta", "@MainActor"), ("keyword", "func"),
                ("function", "load"), ("type", "Int"), ("string", #""id \("#), ("number", "1"),
                ("string", #") \"q\"""#), ("string", ##"#"raw \(no) "x""#"##), ("meta", "#if"),
            ]),
        Sample(
            language: "kotlin",
            code: """
                /* a /* b */ c */
                data class User(val name: String) { fun greet() = "Hi $name ${name.length}" }
                """,
            runs: [
                ("comment", "/* a /* b */ c */"), ("keyword", "data"), ("type", "User"), ("keyword", "fun"),
                ("function", "greet"), ("string", #""Hi "#), ("variable", "$name"), ("string", " ${"),
            ]),
        Sample(
            language: "ruby",
            code: """
                class Greeter < Base
                  attr_reader :name # it's a comment
                  def greet?(x = nil) = puts "Hi #{@name} #{x}"
                end
                """,
            runs: [
                ("keyword", "class"), ("type", "Greeter"), ("function", "attr_reader"), ("string", ":name"),
                ("comment", "# it's a comment"), ("keyword", "def"), ("function", "greet?"), ("literal", "nil"),
                ("string", #""Hi #{"#), ("variable", "@name"), ("keyword", "end"),
            ]),
        Sample(
            language: "php",
            code: """
                <?php
                function greet(string $name): string { return "Hello $name" . 'lit $x'; } // c
                """,
            runs: [
                ("meta", "<?php"), ("keyword", "function"), ("function", "greet"), ("type", "string"),
                ("variable", "$name"), ("string", #""Hello "#), ("string", "'lit $x'"), ("comment", "// c"),
            ]),
        Sample(
            language: "bash",
            code: """
                #!/bin/bash
                NAME="a#b"  # greet
                echo "Hello $NAME ${HOME} $(date +%s)" 'no $var' $# $1 a#b
                cat <<EOF
                body $x
                EOF
                """,
            runs: [
                ("meta", "#!/bin/bash"), ("string", #""a#b""#), ("comment", "# greet"), ("function", "echo"),
                ("variable", "$NAME"), ("variable", "${HOME}"), ("string", "'no $var'"), ("variable", "$#"),
                ("variable", "$1"), ("string", "<<EOF"), ("string", "body $x"), ("string", "EOF"),
            ],
            unclassed: ["date", "#b\n"]),
        Sample(
            language: "powershell",
            code: """
                function Get-Data { param([string]$Path) # c
                  if ($Path -eq "x$($Path)") { Write-Output "Hi $Path" } <# block #> }
                """,
            runs: [
                ("keyword", "function"), ("function", "Get-Data"), ("type", "string"), ("variable", "$Path"),
                ("comment", "# c"), ("keyword", "-eq"), ("string", #""x$("#), ("comment", "<# block #>"),
            ]),
        Sample(
            language: "sql",
            code: "SELECT name, COUNT(*) FROM users WHERE note = 'it''s -- not a comment' AND x IS NULL; -- done",
            runs: [
                ("keyword", "SELECT"), ("function", "COUNT"), ("keyword", "FROM"),
                ("string", "'it''s -- not a comment'"), ("literal", "NULL"), ("comment", "-- done"),
            ]),
        Sample(
            language: "html",
            code: """
                <!DOCTYPE html>
                <a href="/x?a=1&amp;b=2" class=nav disabled>Tom &amp; Jerry</a><!-- note -->
                <script>if (a < b) { f("</p>"); }</script>
                """,
            runs: [
                ("meta", "<!DOCTYPE html>"), ("tag", "<a"), ("attr", "href"), ("string", #""/x?a=1&amp;b=2""#),
                ("attr", "class"), ("string", "nav"), ("attr", "disabled"), ("literal", "&amp;"), ("tag", "</a>"),
                ("comment", "<!-- note -->"), ("tag", "<script>"), ("keyword", "if"), ("string", #""</p>""#),
                ("tag", "</script>"),
            ]),
        Sample(
            language: "css",
            code: """
                /* c */ .nav > li:hover, #main a[href^="http"] { color: #fff; margin: -1.5em 0 10%;
                  background: url(img.png) !important; }
                @media (max-width: 600px) { p { font-size: 12px } }
                """,
            runs: [
                ("comment", "/* c */"), ("type", ".nav"), ("tag", "li"), ("meta", ":hover"), ("type", "#main"),
                ("attr", "href"), ("string", #""http""#), ("property", "color"), ("number", "#fff"),
                ("number", "-1.5em"), ("number", "10%"), ("function", "url"), ("string", "img.png"),
                ("keyword", "!important"), ("keyword", "@media"), ("number", "600px"), ("property", "font-size"),
            ]),
        Sample(
            language: "scss",
            code: """
                $primary: #333; // note
                .btn { &:hover { color: darken($primary, 10%); } }
                """,
            runs: [
                ("variable", "$primary"), ("number", "#333"), ("comment", "// note"), ("type", ".btn"),
                ("meta", ":hover"), ("property", "color"), ("function", "darken"), ("number", "10%"),
            ]),
        Sample(
            language: "json",
            code: #"{"name": "x: y", "n": -1.5e3, "ok": true, "none": null, "list": [1, "two"]}"#,
            runs: [
                ("property", #""name""#), ("string", #""x: y""#), ("number", "-1.5e3"), ("literal", "true"),
                ("literal", "null"), ("property", #""list""#), ("string", #""two""#),
            ]),
        Sample(
            language: "yaml",
            code: """
                # config
                name: "quoted # not a comment" # comment
                list:
                  - &base item: 1.5
                  - *base
                script: |
                  echo "text: not a key"
                enabled: yes
                """,
            runs: [
                ("comment", "# config"), ("property", "name"), ("string", #""quoted # not a comment""#),
                ("comment", "# comment"), ("variable", "&base"), ("property", "item"), ("number", "1.5"),
                ("variable", "*base"), ("string", #"echo "text: not a key""#), ("literal", "yes"),
            ]),
        Sample(
            language: "toml",
            code: """
                [server]
                host = "localhost" # where
                port = 8080
                started = 1979-05-27T07:32:00Z
                [[servers.alpha]]
                inline = { debug = true }
                """,
            runs: [
                ("section", "[server]"), ("property", "host"), ("string", #""localhost""#), ("comment", "# where"),
                ("number", "8080"), ("number", "1979-05-27T07:32:00Z"), ("section", "[[servers.alpha]]"),
                ("property", "inline"), ("property", "debug"), ("literal", "true"),
            ]),
        Sample(
            language: "ini",
            code: "; comment\n[core]\neditor = vim\nautocrlf: false\n",
            runs: [
                ("comment", "; comment"), ("section", "[core]"), ("property", "editor"), ("property", "autocrlf"),
                ("literal", "false"),
            ],
            unclassed: ["vim"]),
        Sample(
            language: "markdown",
            code: """
                # Title
                Some *emphasis*, `code # x`, and [a link](https://example.com).
                - item
                ```python
                def f(): pass
                ```
                """,
            runs: [
                ("section", "# Title"), ("meta", "*"), ("string", "`code # x`"), ("string", "https://example.com"),
                ("meta", "-"), ("meta", "```python"), ("keyword", "def"), ("function", "f"), ("meta", "```"),
            ]),
        Sample(
            language: "dockerfile",
            code: """
                # base image
                FROM node:20 AS build
                RUN apt-get update && \\
                    echo "$HOME" # done
                """,
            runs: [
                ("comment", "# base image"), ("keyword", "FROM"), ("keyword", "RUN"), ("variable", "$HOME"),
                ("comment", "# done"),
            ]),
        Sample(
            language: "makefile",
            code: "CC ?= gcc\nall: main.o\n\t$(CC) -o $@ $^ # link\n",
            runs: [
                ("variable", "CC"), ("section", "all"), ("variable", "$(CC)"), ("variable", "$@"), ("variable", "$^"),
                ("comment", "# link"),
            ]),
        Sample(
            language: "lua",
            code: """
                --[[ block
                comment ]] local function f(t) return t.."[[x]]" end -- done
                """,
            runs: [
                ("comment", "--[[ block"), ("comment", "comment ]]"), ("keyword", "local"), ("keyword", "function"),
                ("function", "f"), ("string", #""[[x]]""#), ("comment", "-- done"),
            ]),
        Sample(
            language: "perl",
            code: #"my @items = (1, 2); my %h; print "Got $x\n" if $s =~ /a#b/; # c"#,
            runs: [
                ("keyword", "my"), ("variable", "@items"), ("variable", "%h"), ("function", "print"),
                ("string", #""Got "#), ("variable", "$x"), ("string", "/a#b/"), ("comment", "# c"),
            ]),
        Sample(
            language: "r",
            code: "df <- data.frame(x = c(1L, NA)) # c\nis.na(df); f <- function(a) TRUE\n",
            runs: [
                ("function", "data.frame"), ("number", "1L"), ("literal", "NA"), ("comment", "# c"),
                ("function", "is.na"), ("keyword", "function"), ("literal", "TRUE"),
            ]),
        Sample(
            language: "scala",
            code: #"case class P(x: Int) { def f = s"v=$x" } /* a /* b */ c */"#,
            runs: [
                ("keyword", "case"), ("type", "P"), ("type", "Int"), ("keyword", "def"), ("function", "f"),
                ("string", #"s"v=$x""#), ("comment", "/* a /* b */ c */"),
            ]),
        Sample(
            language: "dart",
            code: "@override\nWidget build(BuildContext c) => Text('Hi $name ${user.id}');\n",
            runs: [
                ("meta", "@override"), ("type", "Widget"), ("function", "build"), ("type", "BuildContext"),
                ("string", "'Hi "), ("variable", "$name"),
            ]),
        Sample(
            language: "haskell",
            code: """
                {-# LANGUAGE GADTs #-}
                {- outer {- inner -} outer -}
                f :: Maybe Int -> Char
                f x' = 'a' -- done
                """,
            runs: [
                ("meta", "{-# LANGUAGE GADTs #-}"), ("comment", "{- outer {- inner -} outer -}"), ("type", "Maybe"),
                ("type", "Int"), ("type", "Char"), ("string", "'a'"), ("comment", "-- done"),
            ],
            unclassed: ["x'"]),
        Sample(
            language: "elixir",
            code: """
                defmodule Greeter do
                  @moduledoc "Says hi"
                  def hello(name), do: "Hi #{name}" <> :ok
                end
                """,
            runs: [
                ("keyword", "defmodule"), ("type", "Greeter"), ("meta", "@moduledoc"), ("keyword", "def"),
                ("function", "hello"), ("string", #""Hi #{"#), ("string", ":ok"),
            ]),
        Sample(
            language: "objc",
            code: """
                #import <Foundation/Foundation.h>
                @interface Foo : NSObject
                @end
                NSLog(@"Hi %@", self.name); BOOL ok = YES;
                """,
            runs: [
                ("meta", "#import"), ("string", "<Foundation/Foundation.h>"), ("meta", "@interface"), ("type", "Foo"),
                ("type", "NSObject"), ("meta", "@end"), ("function", "NSLog"), ("string", #"@"Hi %@""#),
                ("keyword", "self"), ("type", "BOOL"), ("literal", "YES"),
            ]),
        Sample(
            language: "diff",
            code: "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n same\n-old\n+new\n",
            runs: [
                ("meta", "diff --git a/f b/f"), ("meta", "--- a/f"), ("meta", "+++ b/f"),
                ("section", "@@ -1,2 +1,2 @@"),
                ("deletion", "-old"), ("addition", "+new"),
            ]),
        Sample(
            language: "graphql",
            code: "query GetUser($id: ID!) @cached { user(id: $id) { name } } # c",
            runs: [
                ("keyword", "query"), ("function", "GetUser"), ("variable", "$id"), ("type", "ID"), ("meta", "@cached"),
                ("comment", "# c"),
            ]),
        Sample(
            language: "hcl",
            code: """
                resource "aws_s3_bucket" "b" {
                  bucket = "app-${var.env}" # c
                  force  = true
                }
                """,
            runs: [
                ("keyword", "resource"), ("string", #""aws_s3_bucket""#), ("string", #""app-${"#), ("string", #"}""#),
                ("comment", "# c"), ("literal", "true"),
            ]),
        Sample(
            language: "zig",
            code: "const std = @import(\"std\");\npub fn main() !void { const x: u8 = 0xff; }\n",
            runs: [
                ("keyword", "const"), ("function", "@import"), ("string", #""std""#), ("keyword", "pub"),
                ("function", "main"), ("type", "void"), ("type", "u8"), ("number", "0xff"),
            ]),
        Sample(
            language: "protobuf",
            code: "syntax = \"proto3\";\nmessage User { string name = 1; repeated int32 ids = 2; } // c\n",
            runs: [
                ("keyword", "syntax"), ("string", #""proto3""#), ("keyword", "message"), ("type", "User"),
                ("type", "string"), ("number", "1"), ("keyword", "repeated"), ("type", "int32"), ("comment", "// c"),
            ]),
        Sample(
            language: "console",
            code: "$ echo \"hi\" # greet\nit's output\n",
            runs: [("meta", "$"), ("function", "echo"), ("string", #""hi""#), ("comment", "# greet")],
            unclassed: ["it's"]),
    ]

    @Test(arguments: samples)
    func sampleTokensGetTheirClasses(_ sample: Sample) throws {
        let html = try #require(CodeHighlighter.highlighted(sample.code, language: sample.language))
        let runs = Self.runs(in: html)
        for (kind, text) in sample.runs {
            #expect(runs.contains(Run(kind, text)), "\(Run(kind, text)) not in \(runs)")
        }
        for text in sample.unclassed {
            #expect(!runs.contains { $0.text.contains(text) }, "\(text.debugDescription) classed in \(runs)")
        }
        #expect(Self.strippingSpans(html) == Self.cmarkEscaped(sample.code))
    }

    @Test func everyListedLanguageHasASample() {
        #expect(Set(Self.samples.map(\.language)) == Set(Self.languages))
    }

    @Test func unterminatedStringsAndCommentsRunToTheEnd() throws {
        let cases: [(String, String, String)] = [
            ("python", "x = \"\"\"open\nstill open", "string"),
            ("c", "int x; /* open\nstill open", "comment"),
            ("rust", "/* a /* b */ still open\nstill open", "comment"),
            ("javascript", "let t = `open ${a}\nstill open", "string"),
            ("bash", "echo 'open\nstill open", "string"),
            ("html", "<p><!-- open\nstill open", "comment"),
        ]
        for (language, code, kind) in cases {
            let html = try #require(CodeHighlighter.highlighted(code, language: language))
            #expect(Self.runs(in: html).last == Run(kind, "still open"), "\(language): \(html)")
        }
        let singleLine = try #require(CodeHighlighter.highlighted("s = \"open\nx = 1", language: "python"))
        #expect(Self.runs(in: singleLine).contains(Run("number", "1")))
    }

    @Test func unknownLanguagesGiveNil() {
        for name in ["", "text", "plaintext", "brainfuck", "pythonx", " python"] {
            #expect(CodeHighlighter.highlighted("x = 1", language: name) == nil, "\(name)")
        }
    }

    @Test func aliasesAndCaseResolveToTheirLanguage() {
        let aliases: [String: [String]] = [
            "javascript": ["js", "JSX", "mjs", "cjs", "JavaScript"], "typescript": ["ts", "tsx", "TypeScript"],
            "python": ["py", "Python", "python3"], "bash": ["sh", "shell", "zsh"], "c": ["h", "C"],
            "cpp": ["c++", "cc", "hpp", "C++"], "csharp": ["cs", "c#", "C#"], "ruby": ["rb"], "rust": ["rs"],
            "kotlin": ["kt", "kts"], "yaml": ["yml"], "markdown": ["md"], "html": ["xml", "svg", "xhtml", "HTML"],
            "objc": ["objective-c", "objectivec"], "powershell": ["ps1", "pwsh"],
            "dockerfile": ["docker", "Dockerfile"],
            "makefile": ["make", "Makefile", "mk"], "hcl": ["tf", "terraform"], "go": ["golang"], "diff": ["patch"],
            "json": ["jsonc", "json5"], "ini": ["cfg", "properties"], "perl": ["pl"], "haskell": ["hs"],
            "elixir": ["ex", "exs"], "protobuf": ["proto"], "console": ["shell-session"], "graphql": ["gql"],
        ]
        let code = "# x\nif (a) { return \"s\" } // 1 <b c=\"d\"> $e @f: g\n"
        for (language, names) in aliases {
            let expected = CodeHighlighter.highlighted(code, language: language)
            #expect(expected != nil)
            for name in names {
                #expect(CodeHighlighter.highlighted(code, language: name) == expected, "\(name) as \(language)")
            }
        }
    }

    @Test func strippingTheSpansGivesCmarksEscapingForRandomInput() {
        var random = SplitMix64(seed: 36)
        for round in 0..<100 {
            let code = Self.randomCode(round: round, using: &random)
            for language in Self.languages {
                guard let html = CodeHighlighter.highlighted(code, language: language) else {
                    Issue.record("\(language) unknown")
                    continue
                }
                #expect(Self.strippingSpans(html) == Self.cmarkEscaped(code), "\(language): \(code.debugDescription)")
                #expect(Self.spanProblem(in: html) == nil, "\(language): \(code.debugDescription)")
                #expect(CodeHighlighter.highlighted(code, language: language) == html)
            }
        }
    }

    /// cmark's own output for code blocks (in a language no one highlights) is the highlighted output without spans.
    @Test func strippingTheSpansGivesCmarksOwnOutputForTheBlocksItRenders() throws {
        var random = SplitMix64(seed: 0xC0DE)
        let opening = Array("<pre><code class=\"language-unhighlighted\">".utf8)
        let closing = Array("</code></pre>\n".utf8)
        for round in 0..<50 {
            let code = Self.randomCode(round: round, using: &random)
            let longestTildeRun = code.split(whereSeparator: { $0 != "~" }).map(\.count).max() ?? 0
            let fence = String(repeating: "~", count: max(3, longestTildeRun + 1))
            let rendered = Array(MarkdownRenderer.html("\(fence)unhighlighted\n\(code)\n\(fence)\n").utf8)
            try #require(rendered.starts(with: opening) && rendered.reversed().starts(with: closing.reversed()))
            let escaped = rendered.dropFirst(opening.count).dropLast(closing.count)
            for language in Self.languages {
                let html = try #require(CodeHighlighter.highlighted(Self.unescaped(escaped), language: language))
                #expect(Self.strippingSpans(html) == Array(escaped), "\(language): \(code.debugDescription)")
            }
        }
    }

    @Test func deeplyNestedInterpolationsAndEmbeddingsStayBounded() throws {
        let templates = String(repeating: "`${", count: 5_000) + String(repeating: "}`", count: 5_000)
        let fences = (3...60).map { String(repeating: "`", count: $0) + "markdown\n" }.reversed().joined()
        for (language, code) in [
            ("javascript", templates), ("swift", String(repeating: "\"\\(", count: 5_000)),
            ("markdown", fences), ("html", String(repeating: "<script>`${", count: 2_000)),
        ] {
            let html = try #require(CodeHighlighter.highlighted(code, language: language))
            #expect(Self.strippingSpans(html) == Self.cmarkEscaped(code), "\(language)")
        }
    }

    @Test func hostileRepetitionsKeepTheSpansWellFormed() throws {
        let patterns = [
            "${", "'", "/[", "`", "\"", "(", "<", "#{", "\\", "r#\"", "<<A\n", "{-", "/*", ": ", "$(", "#", "--[[",
            "](",
            "``", "*a", "\"\"\"", "<a ", "#[", "R\"(", "'a", "~~~~\n", "$'", "<!--", "<script>", "&", "- ", "[",
        ]
        for pattern in patterns {
            let code = String(repeating: pattern, count: 400 / pattern.utf8.count)
            for language in Self.languages {
                let html = try #require(CodeHighlighter.highlighted(code, language: language))
                #expect(Self.strippingSpans(html) == Self.cmarkEscaped(code), "\(language): \(pattern)")
                #expect(Self.spanProblem(in: html) == nil, "\(language): \(pattern)")
            }
        }
    }

    // MARK: - Helpers

    /// Random code: atoms of many languages' syntax, unicode and control characters strung together; every fourth
    /// input is random bytes repaired as UTF-8, every fourth a sample cut short.
    private static func randomCode(round: Int, using random: inout SplitMix64) -> String {
        switch round % 4 {
        case 0:
            let bytes = (0..<Int.random(in: 0...200, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            return String(decoding: bytes, as: UTF8.self)
        case 1:
            let sample = samples[Int.random(in: 0..<samples.count, using: &random)].code
            return String(sample.prefix(Int.random(in: 0...sample.count, using: &random)))
        default:
            return (0..<Int.random(in: 0...80, using: &random)).map { _ in atoms.randomElement(using: &random)! }
                .joined()
        }
    }

    private static let atoms = [
        "\"", "'", "`", "\\", "#", "//", "/*", "*/", "{-", "-}", "${", "#{", "\\(", "$(", "$", "@", "<", ">", "&", "\n",
        " ", "\t", "\r\n", "<<EOF\n", "EOF\n", "\"\"\"", "'''", "r#\"", "\"#", "[[", "]]", "--", "<!--", "-->",
        "<script>", "</script>", "<style>", "---\n", "```\n", "```python\n", "~~~", "* ", "- ", ": ", "{", "}", "(",
        ")", "[", "]", "=", ";", ",", ".", "0x1F", "1.5e3", "42", "def", "class", "if", "true", "null", "Name", "x",
        "é", "漢字", "😀", "e\u{301}", "\u{FFFD}", "\u{0}", "%", "!", "?", "|", "+", "@@", "+x\n", "-y\n", "[s]\n",
        "k = v\n", "R\"(", ")\"", "'a'", "'\\n'", "\t$(CC)", "&amp;", "url(", "#[", "/", "//", "\\\n",
    ]

    /// The classed runs of `html`, in order.
    private static func runs(in html: String) -> [Run] {
        var runs: [Run] = []
        var rest = Array(html.utf8)[...]
        while let open = rest.firstRange(of: "<span class=\"hl-".utf8) {
            rest = rest[open.upperBound...]
            let quote = rest.firstIndex(of: UInt8(ascii: "\""))!
            let close = rest.firstRange(of: "</span>".utf8)!
            runs.append(
                Run(String(decoding: rest[..<quote], as: UTF8.self), unescaped(rest[(quote + 2)..<close.lowerBound])))
            rest = rest[close.upperBound...]
        }
        return runs
    }

    /// `text` with cmark's four escapes undone.
    private static func unescaped(_ text: some StringProtocol) -> String {
        unescaped(Array(text.utf8)[...])
    }

    /// `bytes` with cmark's four escapes undone, as a string.
    private static func unescaped(_ bytes: ArraySlice<UInt8>) -> String {
        var plain: [UInt8] = []
        var rest = bytes
        while let byte = rest.first {
            if let (entity, character) = escapes.first(where: { rest.starts(with: $0.1.utf8) }).map({ ($0.1, $0.0) }) {
                plain.append(character)
                rest = rest.dropFirst(entity.utf8.count)
            } else {
                plain.append(byte)
                rest = rest.dropFirst()
            }
        }
        return String(decoding: plain, as: UTF8.self)
    }

    private static let escapes: [(UInt8, String)] = [
        (UInt8(ascii: "&"), "&amp;"), (UInt8(ascii: "<"), "&lt;"), (UInt8(ascii: ">"), "&gt;"),
        (UInt8(ascii: "\""), "&quot;"),
    ]

    /// `text`'s UTF-8 escaped as cmark escapes code: `&`, `<`, `>` and `"`.
    private static func cmarkEscaped(_ text: String) -> [UInt8] {
        Array(text.utf8).flatMap { byte in escapes.first { $0.0 == byte }.map { Array($0.1.utf8) } ?? [byte] }
    }

    /// The UTF-8 of `html` without its tags (the text's own `<` are escaped, so every `<` starts a tag).
    private static func strippingSpans(_ html: String) -> [UInt8] {
        var text: [UInt8] = []
        var inTag = false
        for byte in html.utf8 {
            if byte == UInt8(ascii: "<") { inTag = true }
            if !inTag { text.append(byte) }
            if byte == UInt8(ascii: ">") { inTag = false }
        }
        return text
    }

    private static let knownClasses: Set<String> = [
        "hl-keyword", "hl-string", "hl-number", "hl-comment", "hl-type", "hl-function", "hl-literal", "hl-meta",
        "hl-variable", "hl-tag", "hl-attr", "hl-property", "hl-addition", "hl-deletion", "hl-section",
    ]

    /// What is wrong with the spans of `html`, or nil: each tag is `<span class="…">` with a known class or
    /// `</span>`; spans do not nest, are not empty, hold no line break and are all closed.
    private static func spanProblem(in html: String) -> String? {
        let opening = Array("<span class=\"".utf8)
        let closing = Array("</span>".utf8)
        var rest = Array(html.utf8)[...]
        var open = false
        var textInSpan = false
        while let index = rest.firstIndex(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "\n") }) {
            textInSpan = textInSpan || index > rest.startIndex
            if rest[index] == UInt8(ascii: "\n") {
                if open { return "a line break in a span" }
                rest = rest[(index + 1)...]
                continue
            }
            rest = rest[index...]
            if rest.starts(with: closing) {
                if !open { return "a closing tag outside a span" }
                if !textInSpan { return "an empty span" }
                open = false
                rest = rest.dropFirst(closing.count)
            } else {
                guard !open else { return "a nested span" }
                guard let end = rest.firstIndex(of: UInt8(ascii: ">")), rest.starts(with: opening),
                    knownClasses.contains(
                        String(decoding: rest[(rest.startIndex + opening.count)..<(end - 1)], as: UTF8.self))
                else { return "a tag that is no known span" }
                open = true
                textInSpan = false
                rest = rest[(end + 1)...]
            }
        }
        return open ? "an unclosed span" : nil
    }
}
