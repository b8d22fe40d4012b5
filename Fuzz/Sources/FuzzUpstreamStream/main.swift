import FuzzSupport
import ParleyCore

@testable import ParleyProviders

/// One provider's stream decoder, whichever wire format it reads.
protocol AnyDecoder {
    /// Feeds one event; a thrown error is a refused stream, which is fine.
    mutating func feed(_ message: SSEMessage) throws
    /// Ends the stream; a thrown error is a reply cut short, which is fine.
    func finish() throws
}

/// Wraps a decoder and its chunk buffer.
struct Decoding<Decoder: StreamDecoder>: AnyDecoder {
    var decoder: Decoder
    var chunks: [CompletionChunk] = []

    /// Decodes `message` as `UpstreamRequest` does.
    mutating func feed(_ message: SSEMessage) throws {
        try decoder.decode(message, into: &chunks)
    }

    /// Checks the end as `UpstreamRequest` does once the body has ended.
    func finish() throws {
        try decoder.finish()
    }
}

/// The upstream path of a reply: the bytes of a response body, cut where the fuzzer says (as reads from the socket
/// would cut them), through the SSE parser and each vendor's decoder to the stream's end. Nothing may crash; a
/// refusal is fine.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUpstreamStream(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let input = FuzzInput(start, count) else { return 0 }
    var parser = SSEParser()
    var decoders: [any AnyDecoder] = [
        Decoding(decoder: OpenAIStreamDecoder()), Decoding(decoder: AnthropicStreamDecoder()),
        Decoding(decoder: GeminiStreamDecoder()),
    ]
    var refused = [Bool](repeating: false, count: decoders.count)
    for piece in input.pieces(of: input.data) {
        for message in parser.feed(piece) {
            for which in decoders.indices where !refused[which] {
                do { try decoders[which].feed(message) } catch { refused[which] = true }
            }
        }
    }
    for which in decoders.indices where !refused[which] {
        _ = try? decoders[which].finish()
    }
    return 0
}

runFuzzer(fuzzUpstreamStream)
