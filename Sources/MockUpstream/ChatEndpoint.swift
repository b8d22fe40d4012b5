import Foundation
import Hummingbird

/// Answers chat requests in one wire format: with an error, one JSON body, or a stream.
struct ChatEndpoint<Wire: WireFormat>: Sendable {
    let wire: Wire
    let configuration: MockUpstreamConfiguration
    let stats: MockStats
    let pacer: StreamPacer

    /// Largest request body accepted.
    private static var maxBodySize: Int { 32 * 1024 * 1024 }

    /// Counts the request, then applies the key check and the fault its model selects.
    func respond(to request: Request, context: BasicRequestContext) async -> Response {
        var request = request
        guard let buffer = try? await request.collectBody(upTo: Self.maxBodySize) else {
            await stats.received(body: nil)
            return errorResponse(.badRequest("unreadable or too large body"))
        }
        let text = String(decoding: buffer.readableBytesView, as: UTF8.self)
        let body = try? ChatRequestBody(json: text)
        await stats.received(body: body == nil ? nil : text)
        do throws(MockError) {
            guard let body else { throw .badRequest("body is not a JSON object") }
            var chat = try wire.chatRequest(body: body, request: request, context: context)
            if chat.apiKey == "bad-key" { throw .badKey }
            let fault = MockFault(model: chat.model)
            if fault == .noUsage { chat.includeUsage = false }
            chat.endsAtLimit = fault == .length
            if fault == .empty, chat.stream {
                await stats.answered()
                return Response(status: .ok, headers: [.contentType: "text/event-stream"])
            }
            let rejectTurn = fault == .rateLimited ? await stats.takeRateLimitTurn() : false
            if let error = fault.error(model: chat.model, rejectTurn: rejectTurn, promptTokens: chat.promptTokens) {
                throw error
            }
            let toolReply = fault == .tools ? try await toolReply(to: text) : nil
            let (script, cutAtLimit) = fault.script(
                model: chat.model, configuration: configuration, requestText: text, toolReply: toolReply
            )
            .honouring(
                stop: fault == .ignoresLimits ? [] : body.stop,
                maxTokens: fault == .ignoresLimits ? nil : body.maxTokens)
            chat.endsAtLimit = chat.endsAtLimit || cutAtLimit
            chat.reasoningTokens = script.reasoning.count
            chat.toolCalls = script.toolCalls.count
            guard chat.stream else { return await completeResponse(chat, script: script) }
            let stream = MockStream(script: script, wire: wire, chat: chat, stats: stats, pacer: pacer)
            var headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache"]
            // Watching for the client's close consumes the request stream, so the connection cannot serve another.
            if configuration.closesConnections { headers[.connection] = "close" }
            return Response(
                status: .ok, headers: headers,
                body: stream.body(for: request, watchingForClose: configuration.closesConnections))
        } catch {
            return errorResponse(error)
        }
    }

    /// `mock-tools`' reply to the request body `text`, noting the tool results it carried; a call sent back without
    /// its signature is refused.
    private func toolReply(to text: String) async throws(MockError) -> MockToolReply {
        let turns = wire.toolTurns(in: ToolTurns.body(text))
        if turns.unsignedCall {
            throw .badRequest("Function call is missing a thought_signature in functionCall parts.")
        }
        await stats.receivedToolResults(turns.results)
        return MockToolReply(to: turns, tokens: configuration.tokens)
    }

    /// The whole reply as one JSON body.
    private func completeResponse(_ chat: ChatRequest, script: StreamScript) async -> Response {
        await stats.answered()
        let body = wire.completeBody(
            script.chunks.joined(), reasoning: script.reasoning.joined(), chat: chat,
            completionTokens: script.chunks.count)
        return MockUpstream.json(body)
    }

    /// The vendor-shaped error response, with `Retry-After: 1` on 429.
    private func errorResponse(_ error: MockError) -> Response {
        let (status, body) = wire.errorBody(error)
        var response = MockUpstream.json(body, status: status)
        if status == .tooManyRequests {
            response.headers[.retryAfter] = "1"
        }
        return response
    }
}
