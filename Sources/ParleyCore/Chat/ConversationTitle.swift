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
}
