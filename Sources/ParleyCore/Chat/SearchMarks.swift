import Foundation

/// A search hit's text with the words its terms match marked (`SearchHit.markStart`…`markEnd`), for a database whose
/// own highlighter cannot be trusted with the text (PostgreSQL's `ts_headline` drops what looks like markup). Words
/// are runs of letters and digits; they match ignoring case and accents, a prefix term's last word as a prefix.
public enum SearchMarks {
    /// `text` with its matching words marked; with `maxWords`, cut to that many words from a little before the first
    /// match, `…` where it was cut.
    public static func mark(_ text: String, terms: SearchTerms, maxWords: Int? = nil) -> String {
        var exact: Set<String> = []
        var prefixes: [String] = []
        for term in terms.terms {
            let words = term.text.split { !$0.isLetter && !$0.isNumber }.map { folded(String($0)) }
            if term.isPrefix, let last = words.last {
                prefixes.append(last)
                exact.formUnion(words.dropLast())
            } else {
                exact.formUnion(words)
            }
        }
        let words = wordRanges(in: text)
        let matches = words.map { range in
            let word = folded(String(text[range]))
            return exact.contains(word) || prefixes.contains { word.hasPrefix($0) }
        }
        var first = 0
        var last = words.count
        if let maxWords, words.count > maxWords {
            let firstMatch = matches.firstIndex(of: true) ?? 0
            first = max(0, min(firstMatch - 2, words.count - maxWords))
            last = first + maxWords
        }
        guard first < last else { return text }
        var marked = first > 0 ? "…" : ""
        var position = first > 0 ? words[first].lowerBound : text.startIndex
        for index in first..<last {
            marked += text[position..<words[index].lowerBound]
            let word = text[words[index]]
            marked += matches[index] ? "\(SearchHit.markStart)\(word)\(SearchHit.markEnd)" : String(word)
            position = words[index].upperBound
        }
        if last < words.count {
            marked += "…"
        } else {
            marked += text[position...]
        }
        return marked
    }

    /// A word as it is compared: lowercased, without accents.
    static func folded(_ word: String) -> String {
        word.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }

    /// The ranges of the runs of letters and digits of `text`.
    static func wordRanges(in text: String) -> [Range<String.Index>] {
        var ranges: [Range<String.Index>] = []
        var start: String.Index?
        var index = text.startIndex
        while index < text.endIndex {
            let isWordCharacter = text[index].isLetter || text[index].isNumber
            if isWordCharacter, start == nil { start = index }
            if !isWordCharacter, let began = start {
                ranges.append(began..<index)
                start = nil
            }
            index = text.index(after: index)
        }
        if let began = start { ranges.append(began..<text.endIndex) }
        return ranges
    }
}
