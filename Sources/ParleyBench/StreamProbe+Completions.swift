import AsyncHTTPClient
import Foundation
import NIOCore

extension StreamProbe {
    /// Milliseconds from asking Parley's OpenAI-compatible endpoint for a streamed completion until its first chunk
    /// with text, and the completion tokens its usage chunk reports; throws unless it finished and ended with
    /// `[DONE]`.
    func relayedCompletion(client: HTTPClient) async throws -> (firstToken: Double, tokens: Int) {
        var request = HTTPClientRequest(url: "\(parley)/v1/chat/completions")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(
            ByteBuffer(
                string: #"{"model":"mock-fast","stream":true,"stream_options":{"include_usage":true},"#
                    + #""messages":[{"role":"user","content":"benchmark question"}]}"#))
        let start = ContinuousClock.now
        let response = try await client.execute(request, timeout: .seconds(600))
        guard response.status.code == 200 else { throw BenchError("HTTP \(response.status.code)") }
        var first: Duration?
        // The last buffers, which hold the finish, usage and `[DONE]` chunks (only they are read as text once the
        // first text came, so that reading costs the generator little per chunk).
        var last: [ByteBuffer] = []
        for try await buffer in response.body {
            // The role chunk's delta starts with `role`; a text chunk's with `content`.
            if first == nil, String(buffer: buffer).contains(#""delta":{"content""#) {
                first = start.duration(to: .now)
            }
            last = Array((last + [buffer]).suffix(3))
        }
        let recent = last.map { String(buffer: $0) }.joined()
        guard recent.hasSuffix("data: [DONE]\n\n"), recent.contains(#""finish_reason":"stop""#) else {
            throw BenchError("the completion did not finish: \(recent.suffix(300))")
        }
        guard let first else { throw BenchError("the completion finished without text") }
        guard let tokens = recent.firstMatch(of: /"completion_tokens":(\d+)/).flatMap({ Int($0.1) }) else {
            throw BenchError("the usage chunk has no completion_tokens")
        }
        return (first.milliseconds, tokens)
    }
}
