/// The behaviour a request asks for through its model name; unknown names behave as `mock-fast`.
enum MockFault: String, CaseIterable, Sendable {
    case fast = "mock-fast"
    case slow = "mock-slow"
    case rateLimited = "mock-429"
    case serverError = "mock-500"
    case reset = "mock-reset"
    case stall = "mock-stall"
    case garbage = "mock-garbage"
    case long = "mock-long"
    case missing = "mock-missing"
    /// Sends the whole reply, then drops the connection before the response's end, as a proxy may (not listed).
    case cut = "mock-cut"
    /// Answers a streaming request with 200 and an empty body, as llama.cpp's server answers a prompt too long for its
    /// context.
    case empty = "mock-empty"
    /// Streams the reply without a usage object even when asked for one, as llama.cpp's server does.
    case noUsage = "mock-nousage"
    /// Refuses a prompt over `windowTokens` as too long for its context window, as every vendor does.
    case window = "mock-window"
    /// Ends the reply as cut at its output limit (`finish_reason: "length"`, `max_tokens`, `MAX_TOKENS`).
    case length = "mock-length"
    /// Streams reasoning, then the answer, in each vendor's own form (OpenAI-compatible `reasoning_content`, Anthropic
    /// thinking blocks, Gemini thought parts), with usage that counts the reasoning tokens as each vendor does.
    case think = "mock-think"
    /// Streams its reasoning inside a leading `<think>…</think>` of the content, as DeepSeek-R1 or Qwen through a
    /// server without a reasoning parser (meant for the OpenAI-compatible wire).
    case thinkTag = "mock-think-tag"
    /// Ignores `stop` and `max_tokens` (every other model honours them, as vendors do), so that the client's own cuts
    /// are what ends the reply.
    case ignoresLimits = "mock-deaf"
    /// Answers by citing every numbered source (`<source id="n"`) its request holds, as `[1] [2]`, as a model given
    /// documents does.
    case cite = "mock-cite"
    /// Calls tools and answers from their results, in each vendor's form, as `MockToolReply` says.
    case tools = "mock-tools"

    /// The fault selected by `model`.
    init(model: String) {
        self = MockFault(rawValue: model) ?? .fast
    }

    /// Model names advertised by `GET /v1/models` (every one but `mock-missing` and `mock-cut`).
    static var listedModels: [String] {
        allCases.filter { $0 != .missing && $0 != .cut }.map(\.rawValue)
    }

    /// The context window of `mock-window`, in the mock's prompt tokens (four characters each).
    static let windowTokens = 200

    /// The error to answer with, if any; `rejectTurn` says whether this `mock-429` request is one to refuse.
    func error(model: String, rejectTurn: Bool, promptTokens: Int) -> MockError? {
        switch self {
        case .window where promptTokens > Self.windowTokens:
            .contextTooLong(promptTokens: promptTokens, window: Self.windowTokens)
        case .missing: .modelNotFound(model)
        case .serverError: .serverError
        case .rateLimited where rejectTurn: .rateLimited
        default: nil
        }
    }

    /// The stream to play for `model` under `configuration`, answering the request body `requestText` (and, for
    /// `mock-tools`, with `toolReply`).
    func script(
        model: String, configuration: MockUpstreamConfiguration, requestText: String = "",
        toolReply: MockToolReply? = nil
    ) -> StreamScript {
        let chunks =
            switch self {
            case .cite: MockReply.citations(in: requestText)
            case .tools: toolReply?.chunks ?? []
            default: MockReply.chunks(model: model, tokens: configuration.tokens)
            }
        let partial = Array(chunks.prefix(MockReply.tokensBeforeFault))
        let ending: StreamScript.Ending
        switch self {
        case .reset: ending = .drop
        case .stall: ending = .stall
        case .garbage: ending = .garbage
        case .cut: ending = .finishThenDrop
        default: ending = .finish
        }
        return StreamScript(
            reasoning: MockReply.reasoningChunks(model: model),
            chunks: ending == .finish || ending == .finishThenDrop ? chunks : partial,
            firstTokenDelay: .milliseconds(configuration.firstTokenMilliseconds),
            tokenDelay: .milliseconds(self == .slow ? 100 : configuration.delayMilliseconds),
            ending: ending,
            toolCalls: toolReply?.calls ?? []
        )
    }
}
