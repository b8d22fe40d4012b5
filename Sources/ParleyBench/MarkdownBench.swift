import ArgumentParser
import Foundation
import MockUpstream
import ParleyCore
import ParleyMarkdown

/// `parley-bench markdown`: streams `mock-long`'s ~20 KB reply in 4-character deltas through the paced markdown stream
/// and the real `start` and `token` event encoding (as one stream sends them), at several token rates on a simulated
/// clock, and prints the bytes sent per byte of final HTML and the CPU time per 1,000 tokens.
struct MarkdownBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "markdown",
        abstract: "Measure the streaming markdown renderer.")

    @Option(help: "Token rates to simulate (tokens per second, 0 for an event after every token), comma-separated.")
    var rates = "25,100,400,0"
    @Option(help: "Runs per rate; the CPU time is the best of them.") var runs = 5
    @Option(help: "Milliseconds between token events, as the server coalesces them.") var coalesceMilliseconds = 30

    /// What one simulated stream sent and cost.
    struct Outcome {
        var events = 0
        var htmlBytes = 0
        var eventBytes = 0
        var cpuSeconds = 0.0
    }

    func run() throws {
        let text = MockReply.text(model: "mock-long", tokens: 0)
        let deltas = MockReply.chunks(model: "mock-long", tokens: 0)
        let finalHTML = MarkdownRenderer.html(text).utf8.count
        print(
            "reply: \(text.utf8.count) bytes of markdown in \(deltas.count) deltas of 4 characters; final HTML \(finalHTML) bytes"
        )
        print(" tokens/s | events | HTML sent / final | start and token events / final | CPU ms per 1,000 tokens")
        for rate in rates.split(separator: ",").compactMap({ Int($0) }) {
            let outcomes = (0..<runs).map { _ in stream(deltas, tokensPerSecond: rate) }
            let best = outcomes.min { $0.cpuSeconds < $1.cpuSeconds }!
            let label = rate == 0 ? "every" : "\(rate)"
            print(
                String(repeating: " ", count: max(0, 9 - label.count)) + label
                    + String(
                        format: " | %6d | %16.2f | %30.2f | %8.2f", best.events,
                        Double(best.htmlBytes) / Double(finalHTML), Double(best.eventBytes) / Double(finalHTML),
                        best.cpuSeconds * 1_000_000 / Double(deltas.count)))
        }
    }

    /// Streams the deltas as arriving `tokensPerSecond` apart (every one its own event for 0), sending an event when
    /// the coalescing interval has passed since the last one, and a final one at the end.
    private func stream(_ deltas: [String], tokensPerSecond: Int) -> Outcome {
        let interval = Double(coalesceMilliseconds) / 1000
        var markdown = MarkdownStream()
        var outcome = Outcome()
        outcome.eventBytes =
            StreamEvent.start(messageID: 1, model: "mock-long").frame(id: EventID(messageID: 1, sequence: 1))
            .utf8.count
        var unsent = ""
        var lastEvent = -Double.infinity
        let start = CPUClock.processSeconds()
        for (index, delta) in deltas.enumerated() {
            markdown.append(delta)
            unsent += delta
            let now = tokensPerSecond == 0 ? Double(index) : Double(index) / Double(tokensPerSecond)
            let isLast = index == deltas.count - 1
            guard tokensPerSecond == 0 || now - lastEvent >= interval || isLast else { continue }
            let html = markdown.next(final: isLast)
            let frame = StreamEvent.token(messageID: 1, text: unsent, html: html)
                .frame(id: EventID(messageID: 1, sequence: Int64(outcome.events + 2)), replyNamed: true)
            outcome.events += 1
            outcome.htmlBytes += html.append.utf8.count + (html.tail?.utf8.count ?? 0)
            outcome.eventBytes += frame.utf8.count
            unsent = ""
            lastEvent = now
        }
        outcome.cpuSeconds = CPUClock.processSeconds() - start
        return outcome
    }
}
