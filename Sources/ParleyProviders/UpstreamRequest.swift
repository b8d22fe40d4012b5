import AsyncHTTPClient
import Foundation
import NIOCore
import ParleyCore

/// A streaming POST to a provider: sends JSON, checks the status, decodes the reply's server-sent events, and
/// holds the reply to the first-token and between-tokens deadlines. Transport failures, error statuses and
/// errors reported inside the stream become `ProviderError`s here, once for every wire format.
struct UpstreamRequest: Sendable {
    /// The most of an error body read to explain a failure.
    static let maxErrorBody = 64 * 1024

    let connection: ProviderConnection
    let url: String
    let headers: [(String, String)]
    let body: Data
    /// The model asked for, named when the provider does not know it.
    let model: String

    /// Sends the request and hands every chunk `decoder` reads to `onChunk` until the reply ends.
    func stream(_ decoder: some StreamDecoder, onChunk: @Sendable (CompletionChunk) async -> Void) async throws(ProviderError) {
        do {
            try await withoutActuallyEscaping(onChunk) { onChunk in
                try await connection.timeouts.replyWatchdog.run { progress in
                    try await exchange(decoder, progress: progress, onChunk: onChunk)
                }
            }
        } catch {
            throw connection.providerError(from: error, model: model)
        }
    }

    /// One request and its streamed reply; marks progress at every chunk.
    private func exchange(_ decoder: some StreamDecoder, progress: ExchangeProgress,
                          onChunk: @Sendable (CompletionChunk) async -> Void) async throws {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "text/event-stream")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        // The watchdog bounds the wait for the response head, so the client's own deadline is not used.
        let response = try await connection.client.execute(request, deadline: .distantFuture)
        guard (200..<300).contains(response.status.code) else {
            let errorBody = (try? await response.body.collect(upTo: Self.maxErrorBody)).map { String(buffer: $0) } ?? ""
            throw UpstreamFailure(status: Int(response.status.code), body: errorBody, headers: response.headers)
        }
        var decoder = decoder
        var parser = SSEParser()
        var chunks: [CompletionChunk] = []
        for try await buffer in response.body {
            for message in parser.feed(buffer.readableBytesView) {
                try decoder.decode(message, into: &chunks)
                guard !chunks.isEmpty else { continue }
                progress.mark()
                for chunk in chunks { await onChunk(chunk) }
                chunks.removeAll(keepingCapacity: true)
            }
        }
        try decoder.finish()
    }
}
