/// Server-side syntax highlighting of fenced code: the HTML inside `<code>`, escaped exactly as cmark escapes code,
/// with tokens wrapped in `<span class="hl-…">` (see `TokenClass`); removing the spans gives cmark's output back.
enum CodeHighlighter {
    /// The highlighted HTML of `code` in `language` (a fence's info word: any case, aliases allowed), or nil when the
    /// language is unknown. A pure function of its arguments, linear in the code's length.
    static func highlighted(_ code: String, language: String) -> String? {
        guard let grammar = LanguageNames.grammar(named: language) else { return nil }
        var scanner = SourceScanner(Array(code.utf8))
        grammar.lex(&scanner, depth: 0)
        return scanner.finish()
    }
}
