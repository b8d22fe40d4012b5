import ParleyCore

/// The built-in `parley-demo` model: streams a deterministic markdown reply with no key and no network.
public struct DemoProvider: ChatProvider {
    /// The demo model's id.
    public static let modelID = "parley-demo"
    /// The pause between two tokens.
    let tokenDelay: Duration

    /// Creates the demo provider.
    public init(tokenDelay: Duration = .milliseconds(25)) {
        self.tokenDelay = tokenDelay
    }

    /// The model as offered to users.
    public static var model: ModelInfo {
        ModelInfo(id: modelID, providerID: ModelInfo.demoProviderID, contextWindow: 32_000, vision: true)
    }

    public func streamCompletion(
        _ request: CompletionRequest, onSent: @escaping @Sendable () -> Void,
        onChunk: @escaping @Sendable (CompletionChunk) -> Duration
    ) async throws(ProviderError) {
        onSent()  // nothing goes over a network
        let question = request.turns.last { $0.role == .user }
        let tokens = Self.tokens(of: Self.reply(to: question?.content ?? "", images: question?.images ?? []))
        for token in tokens {
            do { try await Task.sleep(for: tokenDelay) } catch { throw .cancelled }
            _ = onChunk(.text(token))  // the demo paces itself
        }
        let prompt = request.turns.reduce(0) { $0 + ContextWindow.estimatedTokens($1) }
        _ = onChunk(.usage(promptTokens: prompt, completionTokens: tokens.count))
    }

    /// The reply to a question (and its images): the same question always gets the same reply.
    public static func reply(to question: String, images: [TurnImage] = []) -> String {
        let words = question.split(whereSeparator: \.isWhitespace).count
        let attached =
            images.isEmpty
            ? ""
            : " and attached \(images.count) image\(images.count == 1 ? "" : "s") ("
                + images.map { "\($0.contentType), \($0.bytes.count) bytes" }.joined(separator: "; ") + ")"
        return """
            This is **Parley's demo model**: no provider is configured, so this reply is written by the server itself.

            You wrote \(words) word\(words == 1 ? "" : "s")\(attached). Here is what a real model's markdown looks like while it streams:

            ## A short list
            - Replies stream token by token, rendered block by block.
            - Press **Stop** to end a reply; the partial text is kept.
            - Reload the page: the reply picks up where it was.
            - Formulas are typeset: the mean is $\\bar x = \\frac{1}{n}\\sum_{i=1}^{n} x_i$.

            | Setting | Purpose |
            | --- | --- |
            | `OPENAI_API_KEY` | any OpenAI-compatible server |
            | `ANTHROPIC_API_KEY` | Anthropic |
            | `GEMINI_API_KEY` | Gemini |

            ```swift
            let greeting = "Hello from Parley"
            print(greeting)
            ```

            > Set one of the keys above and restart Parley to talk to a real model.
            """
    }

    /// Splits a text into small pieces the way a tokenizer roughly does: words with their leading space.
    static func tokens(of text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        for character in text {
            if (character == " " || character == "\n") && !current.isEmpty && current != " " {
                tokens.append(current)
                current = ""
            }
            current.append(character)
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }
}
