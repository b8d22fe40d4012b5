import FuzzSupport
import ParleyMarkdown

/// The streaming markdown renderer fed a text in pieces the fuzzer chooses (cut between Unicode scalars, so also
/// inside a character): nothing may crash, every event's blocks must continue the one-shot render of the whole text,
/// and those blocks plus the last tail must equal it (what `done` carries). Linking the render's citations may only
/// wrap numbers in links: without them, it is the render again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMarkdown(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let input = FuzzInput(start, count) else { return 0 }
    let text = String(decoding: input.data, as: UTF8.self)
    let whole = MarkdownRenderer.html(text)
    var stream = MarkdownStream()
    var html = ""
    var tail = ""
    let pieces = input.pieces(of: text.unicodeScalars)
    for (index, piece) in pieces.enumerated() {
        stream.append(String(piece))
        let update = stream.next(final: index == pieces.count - 1)
        html += update.append
        if let newTail = update.tail { tail = newTail }
        if !whole.utf8.starts(with: html.utf8) {
            fatalError(
                "the appended blocks left the one-shot render\nappended: \(html.debugDescription)\nwhole: \(whole.debugDescription)"
            )
        }
    }
    let links = [1: "/documents/1#page=1", 2: "/documents/2"]
    let unlinked = links.reduce(CitationLinks.html(whole, links: links)) { text, link in
        text.replacingOccurrences(of: CitationLinks.link(link.key, to: link.value), with: "\(link.key)")
    }
    if unlinked != whole {
        fatalError("linking citations changed more than the numbers\nlinked: \(unlinked.debugDescription)")
    }
    if html + tail != whole {
        fatalError(
            "streamed HTML differs from the one-shot render\nstreamed: \((html + tail).debugDescription)\nwhole: \(whole.debugDescription)"
        )
    }
    return 0
}

runFuzzer(fuzzMarkdown)
