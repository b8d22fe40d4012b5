import ArgumentParser
import MockUpstream

/// `parley-dev mock-upstream`: the LLM upstream simulator for tests, benchmarks and demos.
struct MockUpstreamCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-upstream",
        abstract: "Simulate OpenAI, Anthropic and Gemini streaming upstreams, with faults chosen by model name.")

    @Option(help: "The port to listen on.") var port = 8089
    @Option(help: "Tokens per reply.") var tokens = 40
    @Option(help: "Milliseconds between tokens.") var delayMs = 0
    @Option(help: "Milliseconds before the first token.") var firstTokenMs = 0
    @Flag(
        help: "Keep connections open after a stream, as real providers do (a client leaving is seen at the next write)."
    )
    var keepAlive = false
    @Option(
        help:
            "A PEM certificate chain: serve HTTPS, negotiating HTTP/2 or HTTP/1.1 as real providers do (needs --tls-key)."
    )
    var tlsCertificate: String?
    @Option(help: "The PEM private key of --tls-certificate.") var tlsKey: String?
    @Option(help: "A folder: write a self-signed certificate there (cert.pem, key.pem) and serve HTTPS with it.")
    var tlsSelfSigned: String?

    func validate() throws {
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-certificate and --tls-key go together.")
        }
        guard tlsCertificate == nil || tlsSelfSigned == nil else {
            throw ValidationError(
                "--tls-self-signed makes its own certificate: leave out --tls-certificate and --tls-key.")
        }
    }

    func run() async throws {
        let tls =
            try tlsSelfSigned.map { try MockTLSFiles.selfSigned(in: $0) }
            ?? tlsCertificate.flatMap { chain in tlsKey.map { MockTLSFiles(certificateChain: chain, privateKey: $0) } }
        let configuration = MockUpstreamConfiguration(
            port: port, tokens: tokens, delayMilliseconds: delayMs,
            firstTokenMilliseconds: firstTokenMs, keepsConnections: keepAlive, tls: tls)
        try await MockUpstream(configuration: configuration).run { port in
            print("mock-upstream listening on \(tls == nil ? "http" : "https")://127.0.0.1:\(port)")
        }
    }
}
