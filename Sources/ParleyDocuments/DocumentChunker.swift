import ParleyCore

/// Splits a document's pages into chunks of about `target` tokens (never more than `limit`): by paragraphs, a heading
/// starting a new chunk once the current one is big enough, each chunk on one page, and the last short paragraph of a
/// chunk repeated at the start of the next, so that a passage cut between two is whole in one of them.
public struct DocumentChunker: Sendable {
    public var minimum = 300
    public var target = 500
    public var limit = 800
    /// The longest paragraph repeated at a chunk's start.
    public var overlap = 100

    /// Creates a chunker with the default sizes.
    public init() {}

    /// The chunks of `pages`.
    public func chunks(of pages: [String]) -> [DocumentChunk] {
        var chunks: [DocumentChunk] = []
        for (index, page) in pages.enumerated() {
            var current: [String] = []
            var tokens = 0
            // Whether `current` holds only the paragraph repeated from the chunk before.
            var onlyRepeated = false
            for paragraph in paragraphs(of: page) {
                let size = ContextWindow.estimatedTokens(paragraph)
                let isHeading = paragraph.hasPrefix("#")
                if !current.isEmpty, !onlyRepeated,
                    tokens + size > limit || (isHeading && tokens >= minimum) || tokens >= target
                {
                    chunks.append(
                        DocumentChunk(ordinal: chunks.count, page: index + 1, text: current.joined(separator: "\n\n")))
                    let last = current[current.count - 1]
                    let lastTokens = ContextWindow.estimatedTokens(last)
                    (current, tokens) = lastTokens <= overlap && !isHeading ? ([last], lastTokens) : ([], 0)
                    onlyRepeated = !current.isEmpty
                }
                current.append(paragraph)
                tokens += size
                onlyRepeated = onlyRepeated && current.count == 1
            }
            if !current.isEmpty, !onlyRepeated {
                chunks.append(
                    DocumentChunk(ordinal: chunks.count, page: index + 1, text: current.joined(separator: "\n\n")))
            }
        }
        return chunks
    }

    /// The page's paragraphs (blank-line separated, trimmed), a paragraph longer than `limit` cut into lines or, failing
    /// that, into pieces of about `limit` tokens.
    func paragraphs(of page: String) -> [String] {
        page.components(separatedBy: "\n\n")
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }
            .flatMap { paragraph -> [String] in
                guard ContextWindow.estimatedTokens(paragraph) > limit else { return [paragraph] }
                return pieces(of: paragraph)
            }
    }

    /// A long paragraph cut into pieces of at most about `limit` tokens, at line ends where it has them.
    private func pieces(of paragraph: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        for line in paragraph.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = Substring(line)
            // A line that is itself too long is cut by characters (four a token, as prose counts).
            while ContextWindow.estimatedTokens(String(line)) > limit {
                let cut = line.index(line.startIndex, offsetBy: limit * 3, limitedBy: line.endIndex) ?? line.endIndex
                if !current.isEmpty { pieces.append(current); current = "" }
                pieces.append(String(line[..<cut]))
                line = line[cut...]
            }
            if ContextWindow.estimatedTokens(current + "\n" + line) > limit, !current.isEmpty {
                pieces.append(current)
                current = ""
            }
            current += current.isEmpty ? String(line) : "\n" + line
        }
        if !current.isEmpty { pieces.append(current) }
        return pieces
    }
}
