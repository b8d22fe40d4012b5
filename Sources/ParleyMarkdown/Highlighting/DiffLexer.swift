/// Highlights unified and normal diffs line by line: file headers (meta), hunk headers (section), added and removed
/// lines, and `\ No newline at end of file` (comment).
struct DiffLexer {
    private static let headerPrefixes = [
        "diff ", "index ", "new file mode", "deleted file mode", "old mode", "new mode", "similarity index",
        "rename from", "rename to", "Binary files", "*** ",
    ].map { Array($0.utf8) }
    private static let oldFile = Array("--- ".utf8)
    private static let newFile = Array("+++ ".utf8)

    /// Lexes to the end.
    func lex(_ s: inout SourceScanner) {
        var afterOldFile = false
        while !s.isAtEnd {
            let lineEnd = s.lineEnd(from: s.position)
            let isOldFile = s.matches(Self.oldFile) && s.matches(Self.newFile, at: lineEnd + 1)
            s.emit(upTo: lineEnd, as: isOldFile || (afterOldFile && s.matches(Self.newFile)) ? .meta : kind(of: s))
            afterOldFile = isOldFile
            s.emitCharacter()
        }
    }

    /// The class of the line at the position, file headers aside.
    private func kind(of s: SourceScanner) -> TokenClass? {
        if Self.headerPrefixes.contains(where: { s.matches($0) }) { return .meta }
        switch s.current {
        case UInt8(ascii: "@") where s.peek() == UInt8(ascii: "@"): return .section
        case UInt8(ascii: "+"), UInt8(ascii: ">"): return .addition
        case UInt8(ascii: "-"), UInt8(ascii: "<"): return .deletion
        case UInt8(ascii: "\\"): return .comment
        default: return nil
        }
    }
}
