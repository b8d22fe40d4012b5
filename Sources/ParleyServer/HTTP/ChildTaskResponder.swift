import Hummingbird

/// Answers each request in a child task of its connection's task, so that the memory of the deep part of a request
/// (middleware, handler, database reads) is returned as soon as the response is ready rather than kept for as long
/// as the response streams.
///
/// Swift keeps a task's async frames in slabs that it reuses but frees only when the task ends, so without this a
/// connection holding an event stream open for minutes would keep the slabs of the deepest point its request ever
/// reached (about 28 KB, measured in docs/BENCHMARKS.md). The child's slabs go when it returns the `Response`; the
/// body is then written from the connection's task, at the shallow depth of Hummingbird's writer.
struct ChildTaskResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context: Sendable {
    typealias Context = Inner.Context
    let inner: Inner

    /// The inner responder's answer, computed in a child task (cancelled with the connection, like the request). The
    /// child starts at once on this thread (`addImmediateTask`) and runs until it first waits: queued behind the task
    /// pool's other work instead, every request waited once more for a thread (at 500 streams, a tenth of a
    /// millisecond at the median and milliseconds at the tail, before its handler ran).
    func respond(to request: Request, context: Context) async throws -> Response {
        try await withThrowingTaskGroup(of: Response.self) { group in
            group.addImmediateTask { try await inner.respond(to: request, context: context) }
            // The group has exactly one child, so `next()` returns its response or rethrows its error.
            guard let response = try await group.next() else { throw CancellationError() }
            return response
        }
    }
}
