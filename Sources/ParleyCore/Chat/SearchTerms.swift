import Foundation

/// What a user typed into the search box, as terms every one of which must match: each word, and each "quoted
/// phrase" (an unbalanced quote runs to the end of the text); a word ending in `*` is a prefix. The terms are text
/// only: each store writes them in its engine's syntax, so no operator of the user's ever reaches it as syntax.
public struct SearchTerms: Equatable, Sendable {
    /// A word or phrase, and whether it is a prefix.
    public struct Term: Equatable, Sendable {
        public var text: String
        public var isPrefix: Bool
    }

    /// The longest input read; the rest is ignored.
    public static let maxInputLength = 1_000
    /// The most terms kept.
    public static let maxTerms = 16

    public let terms: [Term]

    /// The terms of the user's text; nil when it holds nothing searchable (no letters or digits).
    public init?(_ text: String) {
        var terms: [Term] = []
        var current = ""
        var inPhrase = false
        func endTerm() {
            defer { current = "" }
            let isPrefix = !inPhrase && current.hasSuffix("*")
            let words = isPrefix ? String(current.reversed().drop { $0 == "*" }.reversed()) : current
            guard terms.count < Self.maxTerms, words.unicodeScalars.contains(where: CharacterSet.alphanumerics.contains)
            else { return }
            terms.append(Term(text: words, isPrefix: isPrefix))
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
        self.terms = terms
    }
}
