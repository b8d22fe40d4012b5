import AsyncHTTPClient
import Foundation
import NIOCore

/// Measures streams: time to the first token straight from the mock and through Parley, and Stop's effect upstream.
struct StreamProbe {
    let client: HTTPClient
    let parley: String
    let mock: String
    let token: String

    /// The first-token times (milliseconds) of one round: every conversation streams at once, through Parley and
    /// straight to the mock, so both see the same load.
    func firstTokenRound(conversations: [Int]) async throws -> (direct: [Double], relayed: [Double], errors: Int) {
        try await withThrowingTaskGroup(of: (Double?, Bool).self) { group in
            for id in conversations {
                group.addTask { (try? await relayedFirstToken(conversation: id), true) }
                group.addTask { (try? await directFirstToken(), false) }
            }
            var direct: [Double] = [], relayed: [Double] = [], errors = 0
            for try await (milliseconds, isRelayed) in group {
                guard let milliseconds else { errors += 1; continue }
                if isRelayed { relayed.append(milliseconds) } else { direct.append(milliseconds) }
            }
            return (direct, relayed, errors)
        }
    }

    /// Milliseconds from sending a message to Parley until its first `token` event; reads the reply to its end.
    func relayedFirstToken(conversation: Int) async throws -> Double {
        try await timeToFirst(marker: "event: token", request: streamingSend(conversation: conversation, content: "benchmark question"))
    }

    /// Milliseconds from sending a streaming request to the mock until its first content chunk.
    func directFirstToken() async throws -> Double {
        var request = HTTPClientRequest(url: "\(mock)/v1/chat/completions")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: #"{"model":"mock-fast","stream":true,"messages":[{"role":"user","content":"benchmark question"}]}"#))
        return try await timeToFirst(marker: "\"content\"", request: request)
    }

    /// Milliseconds from the `stop` request until the mock counts the upstream request as aborted.
    func stopLatency(conversation: Int) async throws -> Double {
        let before = try await abortedCount()
        let response = try await client.execute(streamingSend(conversation: conversation, content: "stop me"), timeout: .seconds(30))
        var iterator = response.body.makeAsyncIterator()
        while let buffer = try await iterator.next(), !String(buffer: buffer).contains("event: token") {}
        let start = ContinuousClock.now
        _ = try await JSONCall.post(client, "\(parley)/api/conversations/\(conversation)/stop", token: token, body: [:])
        while try await abortedCount() == before {
            guard start.duration(to: .now) < .seconds(5) else { throw BenchError("stop did not close the upstream request") }
        }
        let elapsed = start.duration(to: .now)
        while try await iterator.next() != nil {}
        return elapsed.milliseconds
    }

    /// A send to Parley's API that answers with the reply's event stream.
    private func streamingSend(conversation: Int, content: String) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: "\(parley)/api/conversations/\(conversation)/messages")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "text/event-stream")
        request.body = .bytes(ByteBuffer(string: #"{"content":"\#(content)"}"#))
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
        var first: Duration?
        for try await buffer in response.body where first == nil && String(buffer: buffer).contains(marker) {
            first = start.duration(to: .now)
        }
        guard let first else { throw BenchError("no token") }
        return first.milliseconds
    }
}

extension Duration {
    /// The duration in milliseconds.
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
