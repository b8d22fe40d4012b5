import Foundation
import Hummingbird
import ParleyCore

/// Slows share-token guessing: once `limit` share links asked for from one address turned out unknown within
/// `window`, that address gets 429 with `Retry-After` on every share link until the oldest miss ages out. A link holds
/// 128 random bits, so guessing cannot succeed anyway; this stops a guesser from spending the server's time on it.
struct ShareGuessThrottleMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    /// The routes that look a share token up.
    static let tokenRoutes: Set<String> = ["/s/{token}", "/s/{token}/fork", "/s/{token}/revoke"]
    private let misses: SlidingWindowLimiter

    /// A throttle allowing `limit` unknown links per address within `window` seconds, counted in `ledger`.
    init(limit: Int = 30, window: TimeInterval = 600, ledger: any ThrottleLedger) {
        misses = SlidingWindowLimiter(name: "share-guess", limit: limit, window: window, ledger: ledger)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard Self.looksUpShare(request, context) else { return try await next(request, context) }
        let key = context.clientAddress
        if let wait = await misses.retryAfter(keys: [key]) {
            throw AppError.tooManyRequests(
                code: "rate_limited", message: "Too many unknown share links came from your address.",
                wait: wait)
        }
        do {
            let response = try await next(request, context)
            if response.status == .notFound { await misses.record(keys: [key]) }
            return response
        } catch {
            if AppError(mapping: error)?.status == .notFound { await misses.record(keys: [key]) }
            throw error
        }
    }

    /// Whether the request names a share token: a share route, or an image asked for through a link.
    private static func looksUpShare(_ request: Request, _ context: Context) -> Bool {
        guard let route = context.endpointPath else { return false }
        return tokenRoutes.contains(route)
            || (route == "/attachments/{id}" && request.uri.queryParameters["share"] != nil)
    }
}
