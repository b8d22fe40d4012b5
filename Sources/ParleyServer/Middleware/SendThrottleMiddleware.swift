import Foundation
import Hummingbird
import ParleyCore

/// Limits how often one user may start replies (`PARLEY_SEND_RATE` per minute): a send, a regenerate or a new
/// conversation beyond it gets 429 with `Retry-After`, before anything is read or stored.
struct SendThrottleMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    /// The routes that can start a reply (using a prompt can start a conversation with it).
    static let sendRoutes: Set<String> = [
        "/c", "/c/{id}/messages", "/c/{id}/regenerate", "/api/conversations/{id}/messages", "/prompts/{id}/use",
        "/api/prompts/{id}/use",
    ]
    private let limiter: SlidingWindowLimiter?

    /// A throttle of `perMinute` sends per user, counted in `ledger`; nil turns it off.
    init(perMinute: Int?, ledger: any ThrottleLedger) {
        limiter = perMinute.map { SlidingWindowLimiter(name: "send", limit: $0, window: 60, ledger: ledger) }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let limiter, request.method == .post, let route = context.endpointPath, Self.sendRoutes.contains(route),
            let user = context.identity?.user
        else {
            return try await next(request, context)
        }
        if let wait = await limiter.admit(key: "\(user.id)") {
            throw AppError.tooManyRequests(
                code: "rate_limited", message: "You are sending messages too quickly.", wait: wait)
        }
        return try await next(request, context)
    }
}
