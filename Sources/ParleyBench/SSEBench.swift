import ArgumentParser
import Foundation
import ParleyCore
import ParleyMarkdown

/// `parley-bench sse`: encodes `token` events as the server frames them, in process: nanoseconds and bytes per event.
struct SSEBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sse", abstract: "Measure SSE frame encoding.")

    @Option(help: "Events per run.") var events = 200_000
    @Option(help: "Runs; the time is the best of them.") var runs = 5
    @Option(help: "Where to write the JSON results.") var output = "bench-results/sse.json"

    func run() throws {
        let html = StreamedHTML(append: "<p>The quick brown fox jumps over the <em>lazy</em> dog.</p>\n", tail: "<p>The quick brown</p>")
        var best = Double.infinity, bytes = 0
        for _ in 0..<runs {
            bytes = 0
            let start = CPUClock.processSeconds()
            for index in 0..<events {
                let frame = StreamEvent.token(messageID: 42, text: " fox \"jumps\"", html: html)
                    .frame(id: EventID(messageID: 42, sequence: Int64(index)))
                bytes += frame.utf8.count
            }
            best = min(best, CPUClock.processSeconds() - start)
        }
        try MicroResult(benchmark: "sse (token event frames, best of \(runs) × \(events))",
                        figures: ["ns per event": best * 1e9 / Double(events), "bytes per event": Double(bytes) / Double(events),
                                  "MB/s": Double(bytes) / best / 1e6], goal: nil).report(to: output)
    }
}
