import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ParleyCore

/// A streaming POST to a provider: sends JSON, checks the status, and hands back the reply's SSE messages.
/// Transport failures and error statuses become `ProviderError`s here, once for every wire format.
struct UpstreamRequest {
    /// How long to wait for the response head (the model may think for a while before the first byte).
    static let headTimeout: TimeAmount = .seconds(300)
    /// The most of an error body read to explain a failure.
    static let maxErrorBody = 64 * 1024

    let client: HTTPClient
    let url: String
    let headers: [(String, String)]
    let body: Data

    /// Sends the request and calls `onMessage` for every SSE message until the body ends;
    /// `mapStatus` turns an error status and its body into the provider's error.
    func stream(mapStatus: (Int, String, HTTPHeaders) -> ProviderError,
                onMessage: (SSEMessage) async throws -> Void) async throws(ProviderError) {
        do {
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "Accept", value: "text/event-stream")
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            request.body = .bytes(ByteBuffer(bytes: body))
            let response = try await client.execute(request, timeout: Self.headTimeout)
            guard (200..<300).contains(response.status.code) else {
                let errorBody = (try? await response.body.collect(upTo: Self.maxErrorBody)).map { String(buffer: $0) } ?? ""
                throw mapStatus(Int(response.status.code), errorBody, response.headers)
            }
            var parser = SSEParser()
            for try await buffer in response.body {
                for message in parser.feed(buffer.readableBytesView) {
                    try await onMessage(message)
                }
            }
        } catch {
            throw Self.providerError(from: error)
        }
    }

    /// Maps anything thrown while talking upstream to a provider error.
    static func providerError(from error: any Error) -> ProviderError {
        if let error = error as? ProviderError { return error }
        if error is CancellationError || Task.isCancelled { return .cancelled }
        if let error = error as? HTTPClientError {
            switch error {
            case .readTimeout, .deadlineExceeded: return .timedOut
            case .cancelled: return .cancelled
            default: return .unreachable(detail: "\(error)")
            }
        }
        return .unreachable(detail: "\(error)")
    }

    /// The `Retry-After` header in seconds, when given as a number.
    static func retryAfter(_ headers: HTTPHeaders) -> Double? {
        headers.first(name: "retry-after").flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }.flatMap { $0.isFinite ? $0 : nil }
    }
}
