import Foundation
import Hummingbird
import Logging
import ParleyCore
import ParleyJSON

/// Turns every error into the response the caller understands: JSON `{"error":{...}}` for the API, a rendered page
/// for browsers (or a redirect to sign in that returns to the page), and a logged 500 with a request id for our faults.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let pages: PageRenderer

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch {
            let appError = Self.appError(for: error, request: request, context: context)
            if appError.status == .unauthorized, !request.wantsJSON, request.method == .get {
                // Signing in (with a password or single sign-on) comes back to the page asked for.
                let back = LocalRedirect.path(request.uri.description).filter { !["/", "/c"].contains($0) }
                return Response.redirect(to: back.map(LocalRedirect.login(returningTo:)) ?? "/login", type: .normal)
            }
            var response =
                request.isOpenAICompatible
                ? Response(
                    status: appError.status, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(bytes: OpenAIError.body(appError))))
                : request.wantsJSON
                    ? Self.json(appError, requestID: context.id)
                    : pages.errorPage(appError, requestID: context.id, context: context)
            for field in appError.headers { response.headers.append(field) }
            return response
        }
    }

    /// The app error for anything thrown: what it maps to, else a logged 500 (a full disk is logged as critical too).
    static func appError(for error: any Error, request: Request, context: Context) -> AppError {
        if case StoreError.diskFull = error {
            context.logger.critical(
                "the disk holding the database is full",
                metadata: ["route": "\(context.endpointPath ?? "unmatched")"])
        }
        return AppError(mapping: error) ?? internalFailure(error, context: context)
    }

    /// A 500 naming the request id, for a fault of ours, logged with the route.
    static func internalFailure(_ error: any Error, context: Context) -> AppError {
        // The route template, not the path: a path can hold a share token.
        context.logger.error(
            "request failed",
            metadata: [
                "error": "\(String(reflecting: error))",
                "route": "\(context.endpointPath ?? "unmatched")",
            ])
        var failure = AppError.internalError
        failure.message += " (request id \(context.id))"
        return failure
    }

    /// The JSON error body of the API, naming the request id that the server's log line carries too.
    static func json(_ error: AppError, requestID: String) -> Response {
        var object = JSONText()
        object.field("code", error.code)
        object.field("message", error.message)
        object.field("request_id", requestID)
        var body = JSONText()
        body.field("error", object: object)
        return Response(
            status: error.status, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: body.resultBytes)))
    }
}
