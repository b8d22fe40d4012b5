import FuzzSupport
import ParleyCore
import ParleyDocuments

/// Documents read in this process (text in any encoding, HTML as text) and chunked: nothing may crash, and every
/// chunk stays within the chunker's limit, on a page that exists, in order. (PDF and DOCX are read by child processes,
/// whose crash is only a refused document.)
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDocuments(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let input = FuzzInput(start, count) else { return 0 }
    let chunker = DocumentChunker()
    for name in ["fuzz.txt", "fuzz.html"] {
        guard let pages = try? DocumentExtractor.readInProcess(name: name, bytes: input.data) else { continue }
        let chunks = chunker.chunks(of: pages)
        for (index, chunk) in chunks.enumerated() {
            guard chunk.ordinal == index, (1...pages.count).contains(chunk.page),
                ContextWindow.estimatedTokens(chunk.text) <= chunker.limit
            else { fatalError("chunk \(index) breaks the chunker's rules: \(chunk)") }
        }
    }
    return 0
}

runFuzzer(fuzzDocuments)
