import FuzzSupport
@testable import ParleyProviders
import ParleyCore

/// One provider's stream decoder, whichever wire format it reads.
protocol AnyDecoder {
    /// Feeds one event; a thrown error is a refused stream, which is fine.
    mutating func feed(_ message: SSEMessage) throws
}

/// Wraps a decoder and its chunk buffer.
struct Decoding<Decoder: StreamDecoder>: AnyDecoder {
    var decoder: Decoder
    var chunks: [CompletionChunk] = []

    mutating func feed(_ message: SSEMessage) throws {
        try decoder.decode(message, into: &chunks)
    }
}

/// The upstream path of a reply: the bytes of a response body, split where the fuzzer says (as reads from the socket
/// would split them), through the SSE parser and each vendor's decoder. Nothing may crash; a refusal is fine.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUpstreamStream(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzInput(start, count)
    guard let split = bytes.first else { return 0 }
    let body = bytes.dropFirst()
    var parser = SSEParser()
    var decoders: [any AnyDecoder] = [Decoding(decoder: OpenAIStreamDecoder()), Decoding(decoder: AnthropicStreamDecoder()),
                                      Decoding(decoder: GeminiStreamDecoder())]
    var refused = [Bool](repeating: false, count: decoders.count)
    let step = Int(split % 64) + 1
    var index = body.startIndex
    while index < body.endIndex {
        let end = min(index + step, body.endIndex)
        for message in parser.feed(body[index..<end]) {
            for which in decoders.indices where !refused[which] {
                do { try decoders[which].feed(message) } catch { refused[which] = true }
            }
        }
        index = end
    }
    return 0
}

runFuzzer(fuzzUpstreamStream)
