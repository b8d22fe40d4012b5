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

    /// Sends the request and hands every chunk `decoder` reads to `onChunk`, on the connection's event loop as the
    /// bytes arrive, until the reply ends; cancelling the caller closes the upstream request.
    func stream(_ decoder: some StreamDecoder, onChunk: @escaping @Sendable (CompletionChunk) -> Duration) async throws(ProviderError) {
        // Only the task's handle is kept across the wait: this frame is held for as long as the reply streams.
        let task: HTTPClient.Task<Void>
        do {
            task = try send(decoder, onChunk: onChunk)
        } catch {
            throw connection.providerError(from: error, model: model)
        }
        do {
            try await withTaskCancellationHandler {
                try await task.futureResult.get()
            } onCancel: {
                task.cancel()
            }
        } catch {
            throw connection.providerError(from: error, model: model)
        }
    }

    /// Starts the request, with the delegate that reads its reply.
    @inline(never)
    private func send(_ decoder: some StreamDecoder,
                      onChunk: @escaping @Sendable (CompletionChunk) -> Duration) throws -> HTTPClient.Task<Void> {
        var headers = HTTPHeaders([("Content-Type", "application/json"), ("Accept", "text/event-stream")])
        headers.add(contentsOf: self.headers)
        let request = try HTTPClient.Request(url: url, method: .POST, headers: headers, body: .bytes(body))
        let delegate = UpstreamStreamDelegate(decoder: decoder, timeouts: connection.timeouts, onChunk: onChunk)
        let task = connection.client.execute(request: request, delegate: delegate, eventLoop: .indifferent)
        delegate.watch(task)
        return task
    }
}
