import ArgumentParser
import MockUpstream

/// `parley mock-upstream`: the LLM upstream simulator for tests, benchmarks and demos.
struct MockUpstreamCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-upstream",
        abstract: "Simulate OpenAI, Anthropic and Gemini streaming upstreams, with faults chosen by model name.")

    @Option(help: "The port to listen on.") var port = 8089
    @Option(help: "Tokens per reply.") var tokens = 40
    @Option(help: "Milliseconds between tokens.") var delayMs = 0
    @Option(help: "Milliseconds before the first token.") var firstTokenMs = 0
    @Flag(help: "Keep connections open after a stream, as real providers do (a client leaving is seen at the next write).")
    var keepAlive = false

    func run() async throws {
        let configuration = MockUpstreamConfiguration(port: port, tokens: tokens, delayMilliseconds: delayMs,
                                                      firstTokenMilliseconds: firstTokenMs, keepsConnections: keepAlive)
        try await MockUpstream(configuration: configuration).run { port in
            print("mock-upstream listening on http://127.0.0.1:\(port)")
        }
    }
}
