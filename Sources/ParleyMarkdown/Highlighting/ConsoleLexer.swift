/// Highlights terminal sessions: a line starting with a prompt (`$ `, `% `, `# `, `> `, possibly indented) is the
/// prompt (meta) and a shell command (continued lines included); other lines are output, left unclassed.
struct ConsoleLexer {
    /// How deeply this session is embedded.
    let depth: Int

    private static let prompts = Array("$%#>".utf8)

    /// Lexes to the end, line by line.
    func lex(_ s: inout SourceScanner) {
        while !s.isAtEnd {
            let promptStart = s.blankEnd(from: s.position)
            if Self.prompts.contains(s.byte(at: promptStart)), s.byte(at: promptStart + 1).isBlank {
                let end = s.logicalLineEnd(from: s.position)
                s.emit(upTo: promptStart, as: nil)
                s.emit(upTo: promptStart + 1, as: .meta)
                s.within(end) { GenericLexer(language: .shell, depth: depth).lex(&$0) }
            } else {
                s.emit(upTo: s.lineEnd(from: s.position), as: nil)
            }
            s.emitCharacter()
        }
    }
}
