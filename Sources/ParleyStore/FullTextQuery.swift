import Foundation

/// What a user typed into the search box, turned into a safe FTS5 query: every word and every "quoted phrase"
/// becomes a quoted FTS5 string, so no operator, column filter, `NEAR` or parenthesis of the user's ever reaches
/// FTS5 as syntax; a word ending in `*` stays a prefix search; all terms must match. An unbalanced quote runs
/// to the end of the text.
struct FullTextQuery: Equatable {
    /// The longest input read; the rest is ignored.
    static let maxInputLength = 1_000
    /// The most terms kept.
    static let maxTerms = 16

    /// The FTS5 `MATCH` expression.
    let expression: String

    /// Translates the user's text; nil when it holds nothing searchable (no letters or digits).
    init?(_ text: String) {
        var terms: [String] = []
        var current = ""
        var inPhrase = false
        func endTerm() {
            defer { current = "" }
            let isPrefix = !inPhrase && current.hasSuffix("*")
            let words = isPrefix ? String(current.reversed().drop { $0 == "*" }.reversed()) : current
            guard terms.count < Self.maxTerms, words.unicodeScalars.contains(where: CharacterSet.alphanumerics.contains)
            else { return }
            terms.append("\"" + words + "\"" + (isPrefix ? "*" : ""))
        }
        for character in text.prefix(Self.maxInputLength) {
            if character == "\"" {
                endTerm()
                inPhrase.toggle()
            } else if character.isWhitespace
                || character.unicodeScalars.contains(where: CharacterSet.controlCharacters.contains)
            {
                if inPhrase { current.append(" ") } else { endTerm() }
            } else {
                current.append(character)
            }
        }
        endTerm()
        guard !terms.isEmpty else { return nil }
        expression = terms.joined(separator: " ")
    }
}
