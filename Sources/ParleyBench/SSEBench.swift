import ArgumentParser
import Foundation
import ParleyCore
import ParleyMarkdown
import ParleyProviders

/// `parley-bench sse`: encodes `token` events as the server frames them after a stream's first (without
/// `message_id`), and parses upstream chunks as a reply reads them, in process: nanoseconds and bytes per event.
struct SSEBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sse", abstract: "Measure SSE frame encoding and parsing.")

    @Option(help: "Events per run.") var events = 200_000
    @Option(help: "Runs; the time is the best of them.") var runs = 5
    @Option(help: "Where to write the JSON results.") var output = "bench-results/sse.json"

    func run() throws {
        let html = StreamedHTML(
            append: "<p>The quick brown fox jumps over the <em>lazy</em> dog.</p>\n", tail: "<p>The quick brown</p>")
        var best = Double.infinity, bytes = 0
        for _ in 0..<runs {
            bytes = 0
            let start = CPUClock.processSeconds()
            for index in 0..<events {
                let frame = StreamEvent.token(messageID: 42, text: " fox \"jumps\"", html: html)
                    .frame(id: EventID(messageID: 42, sequence: Int64(index)), replyNamed: true)
                bytes += frame.utf8.count
            }
            best = min(best, CPUClock.processSeconds() - start)
        }
        let parsing = bestParse()
        try MicroResult(
            benchmark: "sse (token event frames, and upstream chunks parsed; best of \(runs) × \(events))",
            figures: [
                "ns per event": best * 1e9 / Double(events), "bytes per event": Double(bytes) / Double(events),
                "MB/s": Double(bytes) / best / 1e6, "parse ns per upstream chunk": parsing * 1e9 / Double(events),
            ],
            goal: nil
        ).report(to: output)
    }

    /// CPU seconds, best of the runs, to parse `events` OpenAI-style chunks arriving six to a read, as a reply under
    /// load reads them.
    private func bestParse() -> Double {
        let chunk =
            #"data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini","#
            + #""choices":[{"index":0,"delta":{"content":" fox"},"finish_reason":null}]}"# + "\n\n"
        let read = Array(String(repeating: chunk, count: 6).utf8)
        var best = Double.infinity
        for _ in 0..<runs {
            var parser = SSEParser()
            var messages = 0
            let start = CPUClock.processSeconds()
            for _ in 0..<(events / 6) { messages += parser.feed(read).count }
            best = min(best, CPUClock.processSeconds() - start)
            precondition(messages == events / 6 * 6, "the parser lost messages")
        }
        return best
    }
}
