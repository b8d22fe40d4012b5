/// The ~20 KB markdown reply of `mock-long`, exercising every construct a renderer must survive.
enum LongDocument {
    /// The whole document.
    static let text: String = {
        let topics: [(name: String, emoji: String, cjk: String)] = [
            ("Streaming", "🚀", "流式传输"), ("Retries", "🔁", "重试"), ("Timeouts", "⏱️", "超时"),
            ("Markdown", "📝", "標記言語"), ("Caching", "🗄️", "缓存"), ("Tokens", "🔤", "トークン"),
            ("Errors", "⚠️", "错误"), ("Backpressure", "🌊", "背压"), ("Cancellation", "🛑", "取消"),
            ("Logging", "📜", "日志"), ("Security", "🔐", "보안"), ("Benchmarks", "📊", "基准测试"),
            ("Sessions", "🧵", "会话"), ("Storage", "💾", "ストレージ"),
        ]
        let sections = topics.enumerated().map { section(number: $0.offset + 1, topic: $0.element) }
        return
            "# The Parley mock long reply 📚\n\nThis document is served by `mock-long` to test rendering of long, rich markdown: "
            + "headings, tables, nested lists, block quotes, fenced code, links, emoji and CJK (中文, 日本語, 한국어).\n\n---\n\n"
            + sections.joined()
            + "## Conclusion 🎉\n\nThat is the end of the **mock long reply**. 完了しました。\n"
    }()

    /// The document split into chunks of four characters, as `mock-long` streams it.
    static let chunks: [String] = {
        let characters = Array(text)
        return stride(from: 0, to: characters.count, by: 4).map { start in
            String(characters[start..<min(start + 4, characters.count)])
        }
    }()

    /// One numbered section about `topic`.
    private static func section(number: Int, topic: (name: String, emoji: String, cjk: String)) -> String {
        #"""
        ## \#(number). \#(topic.name) \#(topic.emoji)

        This section about **\#(topic.name.lowercased())** explains how the *mock upstream* behaves, with `inline code`, \#
        a [link to the docs](https://example.com/docs/\#(topic.name.lowercased())?section=\#(number)&lang=en) and some CJK text: \#
        \#(topic.cjk)（第\#(number)节）, 日本語のテキスト and 한국어 문장. Emoji: \#(topic.emoji) ✅ 🎉 👩‍💻.

        ### Summary table

        | Setting | Value | Notes |
        |:--------|------:|:-----:|
        | section | \#(number) | `\#(topic.name.lowercased())` |
        | tokens | \#(number * 40) | approx. *four* characters each |
        | delay | \#(number * 10) ms | per token, \#(topic.cjk) |
        | pipe | `a \| b` | escaped pipe |

        ### Steps

        1. First step for \#(topic.name)
           - nested item with **bold** and _italic_
             - deeper item with `code()`
             - another deep item 🎯
           - second nested item
        2. Second step
           1. ordered nested one
           2. ordered nested two
        3. Third step with a [reference link][ref-\#(number)]

        > A quote about \#(topic.name.lowercased()): "Streams end, but tests remain."
        >
        > > A nested quote, level two, with _emphasis_ and \#(topic.cjk).
        >
        > — The mock upstream

        ```swift
        // Example \#(number): \#(topic.name)
        func example\#(number)() async throws {
            let values = [1, 2, 3]

            for value in values {
                print("value \(value) in section \#(number)")
            }


            // two blank lines above, one below

        }
        ```

        Some ~~strikethrough~~ text, a hard line break  
        and a task list:

        - [x] done for \#(topic.name.lowercased())
        - [ ] still open <b>not html</b> & ampersand

        [ref-\#(number)]: https://example.com/reference/\#(number) "Reference \#(number)"

        ---


        """#
    }
}
