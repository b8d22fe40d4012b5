import ParleyCore

/// The user's search as an FTS5 query: every term a quoted FTS5 string (a phrase when it holds several words), a
/// prefix term followed by `*`, all of them required.
struct FullTextQuery: Equatable {
    /// The FTS5 `MATCH` expression.
    let expression: String

    /// Translates the user's text; nil when it holds nothing searchable.
    init?(_ text: String) {
        guard let search = SearchTerms(text) else { return nil }
        expression = search.terms.map { "\"" + $0.text + "\"" + ($0.isPrefix ? "*" : "") }.joined(separator: " ")
    }
}
