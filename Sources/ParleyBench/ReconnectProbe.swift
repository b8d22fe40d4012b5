import AsyncHTTPClient
import Foundation

extension StreamProbe {
    /// Sends a message, drops its event stream after `dropAfter` token events, and resumes on the conversation's
    /// event stream with `Last-Event-ID` until `done`. Fails when an event came twice or without its reply named before
    /// (the resumed stream must name it again), the reply did not complete, or the text read on both connections is
    /// not the saved reply. Returns the milliseconds from the send to `done`.
    func reconnectedReply(conversation: Int, dropAfter: Int) async throws -> Double {
        let start = ContinuousClock.now
        let response = try await client.execute(
            streamingSend(conversation: conversation, content: "reconnect question"),
            timeout: .seconds(60))
        guard response.status.code == 200 else { throw BenchError("send: HTTP \(response.status.code)") }
        var dropped = SSEFrames()
        // Leaving the loop early drops the connection; the reply goes on without it.
        for try await buffer in response.body {
            dropped.feed(buffer.readableBytesView)
            if dropped.tokens >= dropAfter || dropped.doneStatus != nil { break }
        }
        var resumed = SSEFrames(after: dropped.lastID)
        if dropped.doneStatus == nil {
            var request = HTTPClientRequest(url: "\(parley)/c/\(conversation)/events")
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            if let last = dropped.lastID { request.headers.add(name: "Last-Event-ID", value: last.text) }
            let events = try await client.execute(request, timeout: .seconds(60))
            guard events.status.code == 200 else { throw BenchError("resume: HTTP \(events.status.code)") }
            for try await buffer in events.body {
                resumed.feed(buffer.readableBytesView)
                if resumed.doneStatus != nil { break }
            }
        }
        let elapsed = start.duration(to: .now).milliseconds
        guard resumed.repeats == 0 else { throw BenchError("the resumed stream repeated \(resumed.repeats) events") }
        guard dropped.unattributed + resumed.unattributed == 0, resumed.reply == nil || resumed.reply == dropped.reply
        else { throw BenchError("an event came without naming its reply, or named another one") }
        guard (resumed.doneStatus ?? dropped.doneStatus) == "complete" else {
            throw BenchError("the reply ended as \(resumed.doneStatus ?? dropped.doneStatus ?? "nothing")")
        }
        let messages = try await JSONCall.get(
            client, "\(parley)/api/conversations/\(conversation)/messages?limit=100", token: token)
        let saved = (messages["data"] as? [[String: Any]])?.last?["content"] as? String ?? ""
        // A reply that ended before the resume sends only its `done`, which carries the whole reply as HTML.
        let endedBeforeResume = resumed.tokens == 0 && saved.hasPrefix(dropped.text)
        guard dropped.text + resumed.text == saved || endedBeforeResume else {
            throw BenchError("the text read over both connections differs from the saved reply")
        }
        return elapsed
    }
}
