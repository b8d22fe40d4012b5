import Hummingbird

/// Guards every `/admin` route: a signed-out visitor gets 401 (the error layer sends browsers to the sign-in page),
/// a signed-in user who is not an admin gets 403.
struct AdminOnlyMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard try context.requireUser().isAdmin else { throw AppError.forbidden }
        return try await next(request, context)
    }
}
