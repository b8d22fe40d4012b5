import Foundation

/// The title a conversation gets before anyone names it.
public enum ConversationTitle {
    /// The title of a conversation that has none yet.
    public static let placeholder = "New conversation"

    /// A title from the first words of the first message, without markdown's emphasis and heading marks;
    /// nil when no words are left.
    public static func fromFirstMessage(_ content: String) -> String? {
        let plain = content.filter { !"*_`#>~".contains($0) }
        let words = plain.split(whereSeparator: \.isWhitespace).prefix(8).joined(separator: " ")
        guard !words.isEmpty else { return nil }
        return words.count > 60 ? String(words.prefix(60)) + "…" : words
    }

    /// A title from a model's answer to the title request: its first line without quotes, markdown marks or a final
    /// full stop, at most 60 characters; nil when nothing is left.
    public static func fromModel(_ answer: String) -> String? {
        let line = answer.split(whereSeparator: \.isNewline).first { !$0.allSatisfy(\.isWhitespace) } ?? ""
        var title = line.filter { !"*_`#>~\"“”„«»".contains($0) }
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        if title.lowercased().hasPrefix("title:") {
            title = String(title.dropFirst(6)).trimmingCharacters(in: .whitespaces)
        }
        while let last = title.last, ".!:;,'".contains(last) { title.removeLast() }
        guard !title.isEmpty else { return nil }
        return title.count > 60 ? String(title.prefix(60)) + "…" : title
    }
}
