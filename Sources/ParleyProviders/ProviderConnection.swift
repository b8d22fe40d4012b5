import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import ParleyCore
import ParleyImaging

/// How Parley reaches one provider: the name shown to users, the base URL, the API key, the HTTP client and the
/// timeouts.
public struct ProviderConnection: Sendable {
    /// The name used in messages to users (for example "OpenAI" or a configured provider's id).
    public let name: String
    /// The base URL as the vendor's SDK takes it, without a trailing slash.
    public let baseURL: String
    /// The API key, if one is configured (an empty key counts as none).
    let apiKey: String?
    let client: HTTPClient
    let timeouts: UpstreamTimeouts
    /// Makes the images of a request fit the vendor's limits before it is sent.
    let images: ImageFitter

    /// Creates a connection.
    public init(
        name: String, baseURL: String, apiKey: String?, client: HTTPClient,
        timeouts: UpstreamTimeouts = UpstreamTimeouts(), images: ImageFitter = ImageFitter()
    ) {
        self.name = name
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.apiKey = apiKey.flatMap { $0.isEmpty ? nil : $0 }
        self.client = client
        self.timeouts = timeouts
        self.images = images
    }

    /// Sends `request` and returns the body of its 200 answer, at most `limit` bytes; any other status throws
    /// `UpstreamFailure` with the body read.
    func answer(to request: HTTPClientRequest, upTo limit: Int) async throws -> ByteBuffer {
        let response = try await client.execute(request, deadline: .distantFuture)
        let body = try await response.body.collect(upTo: limit)
        guard response.status == .ok else {
            throw UpstreamFailure(
                status: Int(response.status.code), body: String(buffer: body), headers: response.headers)
        }
        return body
    }

    /// Maps anything thrown while asking this provider about `model` to a provider error.
    func providerError(from error: any Error, model: String) -> ProviderError {
        if let error = error as? ProviderError { return error }
        if let failure = error as? UpstreamFailure {
            return failure.providerError(provider: name, hasKey: apiKey != nil, model: model)
        }
        if error is CancellationError || Task.isCancelled { return .cancelled }
        if let error = error as? HTTPClientError {
            switch error {
            case .readTimeout, .deadlineExceeded: return .timedOut
            case .cancelled: return .cancelled
            case .connectTimeout: return .connectFailed(detail: "\(error)")
            default: return .unreachable(detail: "\(error)")
            }
        }
        if Self.isConnectFailure(error) { return .connectFailed(detail: "\(error)") }
        return .unreachable(detail: "\(error)")
    }

    /// Whether `error` says no connection could be opened at all (refused, no route, no such host), which the HTTP
    /// client has already tried again until the connect timeout.
    static func isConnectFailure(_ error: any Error) -> Bool {
        if error is NIOConnectionError { return true }
        // The last attempt's own timer can fire as the client's connect deadline passes, on a loaded machine.
        if let error = error as? ChannelError, case .connectTimeout = error { return true }
        guard let error = error as? IOError else { return false }
        return [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH].contains(error.errnoCode)
    }
}
