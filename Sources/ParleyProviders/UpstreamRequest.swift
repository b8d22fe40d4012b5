import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ParleyCore

/// A streaming POST to a provider: sends JSON and lets `UpstreamStreamDelegate` check the status, decode the reply's
/// server-sent events and hold it to the first-token and between-tokens deadlines. Transport failures, error
/// statuses and errors reported inside the stream become `ProviderError`s here, once for every wire format.
struct UpstreamRequest: Sendable {
    /// The most of an error body read to explain a failure.
    static let maxErrorBody = 64 * 1024

    let connection: ProviderConnection
    let url: String
    let headers: [(String, String)]
    /// The JSON body.
    let body: [UInt8]
    /// The model asked for, named when the provider does not know it.
    let model: String

    /// Sends the request, calls `onSent` once the client has it, and hands every chunk `decoder` reads to `onChunk`, on
    /// the request's event loop as the bytes arrive, until the reply ends; cancelling the caller closes the upstream
    /// request. A connection lost once the reply's closing event has come (a proxy that cuts it before the response's
    /// end) leaves the reply complete.
    func stream<Decoder: StreamDecoder>(
        _ decoder: Decoder, onSent: @Sendable () -> Void,
        onChunk: @escaping @Sendable (CompletionChunk) -> Duration
    ) async throws(ProviderError) {
        // Only the delegate (which holds the request) is kept across the wait: this frame is held for as long as the
        // reply streams, by every reply, so a second reference here costs memory at 10,000 streams.
        let delegate: UpstreamStreamDelegate<Decoder>
        do {
            delegate = try send(decoder, onChunk: onChunk)
        } catch {
            throw connection.providerError(from: error, model: model)
        }
        onSent()
        do {
            try await withTaskCancellationHandler {
                try await delegate.end.get()
            } onCancel: {
                delegate.cancel()
            }
        } catch {
            throw connection.providerError(from: error, model: model)
        }
    }

    /// Starts the request, with the delegate that reads its reply.
    @inline(never)
    private func send<Decoder: StreamDecoder>(
        _ decoder: Decoder, onChunk: @escaping @Sendable (CompletionChunk) -> Duration
    )
        throws -> UpstreamStreamDelegate<Decoder>
    {
        var headers = HTTPHeaders([("Content-Type", "application/json"), ("Accept", "text/event-stream")])
        headers.add(contentsOf: self.headers)
        let request = try HTTPClient.Request(url: url, method: .POST, headers: headers, body: .bytes(body))
        let delegate = UpstreamStreamDelegate(decoder: decoder, timeouts: connection.timeouts, onChunk: onChunk)
        let task = connection.client.execute(request: request, delegate: delegate, eventLoop: .indifferent)
        delegate.watch(task)
        return delegate
    }
}
