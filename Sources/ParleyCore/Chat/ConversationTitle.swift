import Foundation

/// The title a conversation gets before anyone names it.
public enum ConversationTitle {
    /// The title of a conversation that has none yet.
    public static let placeholder = "New conversation"

    /// A title from the first words of the first message, without markdown's emphasis and heading marks;
    /// nil when no words are left.
    public static func fromFirstMessage(_ content: String) -> String? {
        let words = plainWords(content, marks: "*_`#>~").prefix(8).joined(separator: " ")
        guard !words.isEmpty else { return nil }
        return words.count > 60 ? String(words.prefix(60)) + "…" : words
    }

    /// A title from a model's answer to the title request: its first line without quotes, markdown marks or a final
    /// full stop, at most 60 characters; nil when nothing is left.
    public static func fromModel(_ answer: String) -> String? {
        let line = answer.split(whereSeparator: \.isNewline).first { !$0.allSatisfy(\.isWhitespace) } ?? ""
        var title = plainWords(String(line), marks: "*_`#>~\"“”„«»").joined(separator: " ")
        if title.lowercased().hasPrefix("title:") {
            title = String(title.dropFirst(6)).trimmingCharacters(in: .whitespaces)
        }
        while let last = title.last, ".!:;,'".contains(last) { title.removeLast() }
        guard !title.isEmpty else { return nil }
        return title.count > 60 ? String(title.prefix(60)) + "…" : title
    }

    /// The words of `text` without the `marks` in them (emphasis, code, heading and quote marks), but for marks
    /// between two letters or digits, as in `snake_case`.
    static func plainWords(_ text: String, marks: String) -> [String] {
        text.split(whereSeparator: \.isWhitespace).compactMap { word in
            let characters = Array(word)
            var plain = ""
            var index = 0
            while index < characters.count {
                guard marks.contains(characters[index]) else {
                    plain.append(characters[index])
                    index += 1
                    continue
                }
                var end = index
                while end < characters.count, marks.contains(characters[end]) { end += 1 }
                let joinsWords =
                    index > 0 && end < characters.count
                    && (characters[index - 1].isLetter || characters[index - 1].isNumber)
                    && (characters[end].isLetter || characters[end].isNumber)
                if joinsWords { plain += String(characters[index..<end]) }
                index = end
            }
            return plain.isEmpty ? nil : plain
        }
    }
}
