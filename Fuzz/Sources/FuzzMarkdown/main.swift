import FuzzSupport
import ParleyMarkdown

/// The streaming markdown renderer fed a text in pieces the fuzzer chooses: nothing may crash, and the blocks it
/// appended plus its last tail must equal the one-shot render of the whole text (what `done` carries).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMarkdown(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzInput(start, count)
    guard bytes.count > 1 else { return 0 }
    // The first byte seeds the piece sizes; the rest is the text.
    var seed = UInt64(bytes[0]) | 1
    let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
    let characters = Array(text)
    var stream = MarkdownStream()
    var html = ""
    var tail = ""
    var index = 0
    while index < characters.count {
        seed = seed &* 6364136223846793005 &+ 1442695040888963407
        let length = Int(seed >> 59) + 1
        let end = min(index + length, characters.count)
        stream.append(String(characters[index..<end]))
        let update = stream.next(final: false)
        html += update.append
        if let newTail = update.tail { tail = newTail }
        index = end
    }
    let last = stream.next(final: true)
    html += last.append
    if let newTail = last.tail { tail = newTail }
    let streamed = html + tail
    let whole = MarkdownRenderer.html(text)
    if streamed != whole {
        fatalError("streamed HTML differs from the one-shot render\nstreamed: \(streamed.debugDescription)\nwhole: \(whole.debugDescription)")
    }
    return 0
}

runFuzzer(fuzzMarkdown)
