/// A question turned into an FTS5 query for retrieval: its words (letters and digits only, so nothing of the user's
/// reaches FTS5 as syntax), without the commonest English words, any of them matching (`OR`), so that BM25 ranks
/// chunks by how many of the rarer words they hold.
struct RetrievalQuery: Equatable {
    /// The most words kept.
    static let maxWords = 32
    /// Words too common to tell chunks apart.
    static let stopWords: Set<String> = [
        "a", "about", "all", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can", "could", "did",
        "do", "does", "for", "from", "had", "has", "have", "he", "her", "his", "how", "i", "if", "in", "into", "is",
        "it", "its", "me", "my", "no", "not", "of", "on", "or", "our", "she", "so", "than", "that", "the", "their",
        "them", "then", "there", "these", "they", "this", "to", "us", "was", "we", "were", "what", "when", "where",
        "which", "who", "why", "will", "with", "would", "you", "your",
    ]

    /// The FTS5 `MATCH` expression.
    let expression: String

    /// The query for `question`; nil when it holds no word worth matching.
    init?(_ question: String) {
        var words: [String] = []
        var seen: Set<String> = []
        for word in question.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }) {
            let word = String(word)
            guard word.count >= 2 || word.first?.isNumber == true, !Self.stopWords.contains(word),
                seen.insert(word).inserted
            else { continue }
            words.append("\"\(word)\"")
            if words.count == Self.maxWords { break }
        }
        guard !words.isEmpty else { return nil }
        expression = words.joined(separator: " OR ")
    }
}
