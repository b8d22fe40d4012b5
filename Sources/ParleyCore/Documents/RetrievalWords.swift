/// The words of a question that retrieval matches chunks by: letters and digits only (so nothing of the user's reaches
/// a full-text engine as syntax), without the commonest English words, each once, at most `maxWords`. Any of them
/// matching ranks a chunk, so that chunks holding more of the rarer words rank higher.
public enum RetrievalWords {
    /// The most words kept.
    public static let maxWords = 32
    /// Words too common to tell chunks apart.
    static let stopWords: Set<String> = [
        "a", "about", "all", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can", "could", "did",
        "do", "does", "for", "from", "had", "has", "have", "he", "her", "his", "how", "i", "if", "in", "into", "is",
        "it", "its", "me", "my", "no", "not", "of", "on", "or", "our", "she", "so", "than", "that", "the", "their",
        "them", "then", "there", "these", "they", "this", "to", "us", "was", "we", "were", "what", "when", "where",
        "which", "who", "why", "will", "with", "would", "you", "your",
    ]

    /// The words of `question` worth matching, lowercased, in order; empty when none is.
    public static func of(_ question: String) -> [String] {
        var words: [String] = []
        var seen: Set<String> = []
        for word in question.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }) {
            let word = String(word)
            guard word.count >= 2 || word.first?.isNumber == true, !stopWords.contains(word),
                seen.insert(word).inserted
            else { continue }
            words.append(word)
            if words.count == maxWords { break }
        }
        return words
    }
}
