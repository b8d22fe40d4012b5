/// Highlights Dockerfiles: comments, each instruction's name (keyword), and the rest of the instruction, continued
/// lines included, as shell.
struct DockerfileLexer {
    /// How deeply this Dockerfile is embedded.
    let depth: Int

    /// Lexes to the end, instruction by instruction.
    func lex(_ s: inout SourceScanner) {
        while !s.isAtEnd {
            if s.current.isWhitespace {
                s.emitCharacter()
            } else if s.current == UInt8(ascii: "#") {
                s.emit(upTo: s.lineEnd(from: s.position), as: .comment)
            } else {
                let end = s.logicalLineEnd(from: s.position)
                s.emit(upTo: s.wordEnd(from: s.position), as: .keyword)
                s.within(end) { GenericLexer(language: .shell, depth: depth).lex(&$0) }
            }
        }
    }
}
