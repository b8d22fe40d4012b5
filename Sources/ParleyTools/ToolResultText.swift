import MCP

/// A tool result as the model reads it: text blocks as they are, other blocks described in a line, joined by blank
/// lines, and cut at the size limit with a note saying how large the whole was.
enum ToolResultText {
    /// The text of `content`, at most `maxBytes` bytes of UTF-8 (cut at a character) plus the note.
    static func text(of content: [Tool.Content], maxBytes: Int) -> String {
        bounded(content.map(describe).joined(separator: "\n\n"), maxBytes: maxBytes)
    }

    /// `text` itself when it fits in `maxBytes`, else its first `maxBytes` bytes (whole characters) and a note.
    static func bounded(_ text: String, maxBytes: Int) -> String {
        let size = text.utf8.count
        guard size > maxBytes else { return text }
        var end = text.startIndex
        var bytes = 0
        while end < text.endIndex {
            let next = text.index(after: end)
            bytes += text.utf8.distance(from: end, to: next)
            guard bytes <= maxBytes else { break }
            end = next
        }
        return text[..<end]
            + "\n[truncated: the result was \(kilobytes(size)) KB, the first \(kilobytes(maxBytes)) KB are shown]"
    }

    /// One block as text.
    private static func describe(_ block: Tool.Content) -> String {
        switch block {
        case .text(let text, _, _):
            text
        case .image(let data, let mimeType, _, _):
            "[image: \(mimeType), \(kilobytes(data.utf8.count * 3 / 4)) KB, not shown]"
        case .audio(let data, let mimeType, _, _):
            "[audio: \(mimeType), \(kilobytes(data.utf8.count * 3 / 4)) KB, not shown]"
        case .resource(let resource, _, _):
            resource.text.map { "[resource \(resource.uri)]\n" + $0 }
                ?? "[resource \(resource.uri): \(resource.mimeType ?? "binary"), not shown]"
        case .resourceLink(let uri, let name, _, let description, _, _):
            "[link: \(name) \(uri)" + (description.map { " – " + $0 } ?? "") + "]"
        }
    }

    /// Bytes as whole kilobytes (of 1,024), at least 1 for anything not empty.
    private static func kilobytes(_ bytes: Int) -> Int {
        bytes == 0 ? 0 : max(1, bytes / 1_024)
    }
}
