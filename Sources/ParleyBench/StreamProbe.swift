import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore

/// Measures streams: time to the first token straight from the mock and through Parley, and Stop's effect upstream.
struct StreamProbe {
    let client: HTTPClient
    /// The clients replies stream through, taken in turn by conversation (one, `client`, over plain HTTP).
    let streams: [HTTPClient]
    let parley: String
    let mock: String
    let token: String
    /// Where replies are asked for: a conversation's messages, or the OpenAI-compatible endpoint.
    var endpoint = Endpoint.conversation

    /// Where a probe asks for replies.
    enum Endpoint: String, CaseIterable, ExpressibleByArgument {
        /// `POST /api/conversations/{id}/messages`, answered with the reply's event stream.
        case conversation
        /// `POST /v1/chat/completions`, streamed as OpenAI's chunks.
        case openai
    }

    /// What a round measured: first-token times (milliseconds), tokens relayed, errors and wall time.
    struct SteadyRound {
        var direct: [Double] = []
        var relayed: [Double] = []
        var tokens = 0
        /// What went wrong, one line per failed request, naming its path (through Parley or straight to the mock).
        var errors: [String] = []
        var seconds = 0.0

        /// Adds the samples, tokens and errors of `other` (not its wall time).
        mutating func add(_ other: SteadyRound) {
            direct += other.direct
            relayed += other.relayed
            tokens += other.tokens
            errors += other.errors
        }
    }

    /// Starts one reply per conversation, `rampPerStream` apart, so that later sends meet the streams already running,
    /// and `directSamples` requests straight to the mock spread over the same ramp; reads every reply to its end.
    func steadyRound(conversations: [Int], rampPerStream: Duration, directSamples: Int) async -> SteadyRound {
        let start = ContinuousClock.now
        let directEvery = max(1, conversations.count / max(1, directSamples))
        return await round(from: start) { group in
            for (index, id) in conversations.enumerated() {
                let at = start + rampPerStream * index
                group.addTask {
                    try? await Task.sleep(until: at)
                    return await relayedSample(conversation: id, counted: true)
                }
                if index % directEvery == 0 {
                    group.addTask {
                        try? await Task.sleep(until: at)
                        return await directSample()
                    }
                }
            }
        }
    }

    /// Keeps a reply streaming in every conversation for `hold` once all have started: they start `rampPerStream`
    /// apart, then each sends again as soon as its reply ends. Only the sends made during the hold are timed, each
    /// meeting the other conversations' streams already running (the ramp's sends, made while fewer ran, are not), with
    /// `directSamples` requests straight to the mock spread over the hold. A conversation whose reply fails sends no
    /// more.
    func heldRound(conversations: [Int], rampPerStream: Duration, hold: Duration, directSamples: Int) async
        -> SteadyRound
    {
        let start = ContinuousClock.now
        let holdStart = start + rampPerStream * conversations.count
        let holdEnd = holdStart + hold
        return await round(from: start) { group in
            for (index, id) in conversations.enumerated() {
                group.addTask {
                    try? await Task.sleep(until: start + rampPerStream * index)
                    var sent = SteadyRound()
                    repeat {
                        sent.add(await relayedSample(conversation: id, counted: ContinuousClock.now >= holdStart))
                    } while ContinuousClock.now < holdEnd && sent.errors.isEmpty
                    return sent
                }
            }
            for index in 0..<max(1, directSamples) {
                group.addTask {
                    try? await Task.sleep(until: holdStart + hold / max(1, directSamples) * index)
                    return await directSample()
                }
            }
        }
    }

    /// Runs the requests `addRequests` adds to a task group, and gathers what they measured, timed from `start`.
    private func round(
        from start: ContinuousClock.Instant,
        _ addRequests: (inout TaskGroup<SteadyRound>) -> Void
    ) async -> SteadyRound {
        var round = await withTaskGroup(of: SteadyRound.self) { group in
            addRequests(&group)
            var round = SteadyRound()
            for await sample in group { round.add(sample) }
            return round
        }
        round.seconds = start.duration(to: .now).milliseconds / 1000
        return round
    }

    /// One reply through Parley: its first-token time (when `counted`) and its tokens, or why it failed.
    private func relayedSample(conversation: Int, counted: Bool) async -> SteadyRound {
        do {
            let reply = try await relayedReply(conversation: conversation)
            return SteadyRound(relayed: counted ? [reply.firstToken] : [], tokens: reply.tokens)
        } catch {
            return SteadyRound(errors: ["through Parley: " + String(describing: error)])
        }
    }

    /// One request straight to the mock: its first-token time, or why it failed.
    private func directSample() async -> SteadyRound {
        do {
            return SteadyRound(direct: [try await directFirstToken()])
        } catch {
            return SteadyRound(errors: ["straight to the mock: " + String(describing: error)])
        }
    }

    /// Milliseconds from sending a message to Parley until its first `token` event, and the completion tokens its
    /// `done` reports; throws unless the reply completed.
    func relayedReply(conversation: Int) async throws -> (firstToken: Double, tokens: Int) {
        if endpoint == .openai { return try await relayedCompletion(client: streams[conversation % streams.count]) }
        let start = ContinuousClock.now
        let response = try await streams[conversation % streams.count].execute(
            streamingSend(conversation: conversation, content: "benchmark question"),
            timeout: .seconds(600))
        guard response.status.code == 200 else { throw BenchError("HTTP \(response.status.code)") }
        var first: Duration?
        var reader = ReplyStreamReader()
        for try await buffer in response.body {
            reader.read(buffer)
            if first == nil, reader.sawToken { first = start.duration(to: .now) }
        }
        guard !reader.done.isEmpty else { throw BenchError("the event stream ended without a done event") }
        let done = String(decoding: reader.done, as: UTF8.self)
        let status = done.firstMatch(of: /"status":"(\w+)"/).map { String($0.1) }
        guard status == "complete" else {
            let failure = String(decoding: reader.error, as: UTF8.self)
            let reason =
                failure.firstMatch(of: /"code":"([^"]*)","message":"((?:[^"\\]|\\.)*)"/).map { " (\($0.1): \($0.2))" }
                ?? ""
            throw BenchError("the reply ended as \(status ?? "an unreadable done event")\(reason)")
        }
        guard let first else { throw BenchError("the reply completed without a token event") }
        guard let tokens = done.firstMatch(of: /"completion_tokens":(\d+)/).flatMap({ Int($0.1) }) else {
            throw BenchError("the done event has no completion_tokens")
        }
        return (first.milliseconds, tokens)
    }

    /// Milliseconds from sending a streaming request to the mock until its first content chunk.
    func directFirstToken() async throws -> Double {
        var request = HTTPClientRequest(url: "\(mock)/v1/chat/completions")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(
            ByteBuffer(
                string:
                    #"{"model":"mock-fast","stream":true,"messages":[{"role":"user","content":"benchmark question"}]}"#)
        )
        return try await timeToFirst(marker: "\"content\"", request: request)
    }

    /// Milliseconds from the `stop` request until the mock counts the upstream request as aborted; fails unless the
    /// reply then ends as `stopped`.
    func stopLatency(conversation: Int) async throws -> Double {
        let before = try await abortedCount()
        let response = try await client.execute(
            streamingSend(conversation: conversation, content: "stop me"), timeout: .seconds(30))
        guard response.status.code == 200 else { throw BenchError("HTTP \(response.status.code)") }
        var iterator = response.body.makeAsyncIterator()
        while let buffer = try await iterator.next(), !String(buffer: buffer).contains("event:token") {}
        let start = ContinuousClock.now
        _ = try await JSONCall.post(client, "\(parley)/api/conversations/\(conversation)/stop", token: token, body: [:])
        while try await abortedCount() == before {
            guard start.duration(to: .now) < .seconds(5) else {
                throw BenchError("stop did not close the upstream request")
            }
        }
        let elapsed = start.duration(to: .now)
        var recent = ""
        while let buffer = try await iterator.next() { recent = String((recent + String(buffer: buffer)).suffix(4096)) }
        guard recent.contains(#""status":"stopped""#) else { throw BenchError("the reply did not end as stopped") }
        return elapsed.milliseconds
    }

    /// A send to Parley's API that answers with the reply's event stream.
    func streamingSend(conversation: Int, content: String) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: "\(parley)/api/conversations/\(conversation)/messages")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "text/event-stream")
        // A request id, as the browser sends with every message.
        request.body = .bytes(ByteBuffer(string: #"{"content":"\#(content)","request_id":"\#(UUID().uuidString)"}"#))
        return request
    }

    private func abortedCount() async throws -> Int {
        let response = try await client.execute(HTTPClientRequest(url: mock + "/stats"), timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 1 << 20)
        let stats = (try JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any]
        return stats?["aborted"] as? Int ?? 0
    }

    private func timeToFirst(marker: String, request: HTTPClientRequest) async throws -> Double {
        let start = ContinuousClock.now
        let response = try await client.execute(request, timeout: .seconds(60))
        guard response.status.code == 200 else { throw BenchError("HTTP \(response.status.code)") }
        // Leaving after the first token closes the request, so the mock plays no more of it: the rest of a direct
        // stream would only load the core that the mock and this generator share.
        for try await buffer in response.body where String(buffer: buffer).contains(marker) {
            return start.duration(to: .now).milliseconds
        }
        throw BenchError("no token")
    }
}

extension Duration {
    /// The duration in milliseconds.
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
