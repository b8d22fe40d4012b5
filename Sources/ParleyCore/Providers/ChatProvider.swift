/// An image sent with a turn to a vision model: its media type and bytes.
public struct TurnImage: Sendable, Equatable {
    public var contentType: String
    public var bytes: [UInt8]
    /// The SHA-256 of a stored attachment's bytes (hex), which names its fitted copies; nil for any other image.
    public var digest: String?

    /// Creates an image.
    public init(contentType: String, bytes: [UInt8], digest: String? = nil) {
        self.contentType = contentType
        self.bytes = bytes
        self.digest = digest
    }
}

/// One message of the context sent upstream.
public struct ChatTurn: Sendable, Equatable {
    public var role: MessageRole
    public var content: String
    /// Images attached to the turn (sent to vision models only).
    public var images: [TurnImage]
    /// The tools an assistant turn asked to call (its `content` may be empty then).
    public var toolCalls: [ToolCall]
    /// The results of the previous turn's calls, which this user-role turn carries back (its `content` empty); each
    /// vendor sends them in its own form (OpenAI `tool` messages, Anthropic `tool_result` blocks, Gemini
    /// `functionResponse` parts).
    public var toolResults: [ToolResult]

    /// Creates a turn.
    public init(
        role: MessageRole, content: String, images: [TurnImage] = [], toolCalls: [ToolCall] = [],
        toolResults: [ToolResult] = []
    ) {
        self.role = role
        self.content = content
        self.images = images
        self.toolCalls = toolCalls
        self.toolResults = toolResults
    }
}

/// What a provider is asked to complete.
public struct CompletionRequest: Sendable, Equatable {
    /// The model name the provider knows.
    public var model: String
    public var turns: [ChatTurn]
    /// The most tokens the answer may have (nil: the provider's own limit).
    public var maxTokens: Int?
    /// Texts at which the provider stops the answer (none: it stops where the model ends).
    public var stop: [String]
    /// Tokens the model may think for, with its thinking shown (`ModelInfo.thinkingBudget`); on top of `maxTokens`.
    public var thinkingBudget: Int?
    /// The sampling temperature (nil: the provider's default).
    public var temperature: Double?
    /// The nucleus sampling mass (nil: the provider's default).
    public var topP: Double?
    /// How hard a reasoning model thinks: OpenAI-compatible servers get it as `reasoning_effort`; for Anthropic and
    /// Gemini it sets the thinking budget (over `thinkingBudget`).
    public var reasoningEffort: ReasoningEffort?
    /// The tools the model may call (none: it is offered no tool).
    public var tools: [ToolDefinition] = []

    /// The thinking budget asked of Anthropic and Gemini: the effort's, else the model's.
    public var effectiveThinkingBudget: Int? { reasoningEffort?.thinkingBudget ?? thinkingBudget }

    /// Whether any turn carries an image.
    public var hasImages: Bool { turns.contains { !$0.images.isEmpty } }

    /// Creates a request.
    public init(
        model: String, turns: [ChatTurn], maxTokens: Int? = nil, stop: [String] = [], thinkingBudget: Int? = nil
    ) {
        self.model = model
        self.turns = turns
        self.maxTokens = maxTokens
        self.stop = stop
        self.thinkingBudget = thinkingBudget
    }

    /// The request for `model`, thinking as much as that model is set to.
    public init(model: ModelInfo, turns: [ChatTurn]) {
        self.init(model: model.upstreamID, turns: turns, thinkingBudget: model.thinkingBudget)
    }

    /// The request with `options` applied (each nil value leaves the provider's default).
    public func applying(_ options: GenerationOptions) -> CompletionRequest {
        var request = self
        request.temperature = options.temperature
        request.topP = options.topP
        request.maxTokens = options.maxTokens
        request.stop = options.stop
        request.reasoningEffort = options.reasoningEffort
        return request
    }

    /// The same request asked of `model` instead (a fallback): its upstream name and thinking, the rest kept.
    public func answered(by model: ModelInfo) -> CompletionRequest {
        var request = self
        request.model = model.upstreamID
        request.thinkingBudget = model.thinkingBudget
        return request
    }
}

/// A piece of a streamed completion.
public enum CompletionChunk: Sendable, Equatable {
    /// New reply text.
    case text(String)
    /// New text of the model's reasoning (its thinking before the answer), kept apart from the reply text.
    case reasoning(String)
    /// The provider's own token counts; `cachedPromptTokens` is the part of the prompt read from its prompt cache,
    /// `reasoningTokens` the part of `completionTokens` the model spent reasoning (0 when the provider does not say).
    case usage(promptTokens: Int, completionTokens: Int, cachedPromptTokens: Int = 0, reasoningTokens: Int = 0)
    /// The reply stopped at its output limit, not where the model ended it.
    case cutAtLimit
    /// The model asks for a tool call, its arguments complete (a provider gathers a call's streamed pieces first); a
    /// completion with calls ends when the model waits for their results.
    case toolCall(ToolCall)
}

/// An upstream that streams completions (OpenAI-compatible, Anthropic, Gemini, the demo).
public protocol ChatProvider: Sendable {
    /// Streams a completion, calling `onSent` once the request has been handed to the network (before any chunk; never,
    /// when it fails before that), then handing each chunk to `onChunk` as it arrives (possibly on a network thread, so
    /// it must not block); `onChunk` answers how long the provider may leave further bytes unread. Cancelling the task
    /// closes the upstream request.
    func streamCompletion(
        _ request: CompletionRequest, onSent: @escaping @Sendable () -> Void,
        onChunk: @escaping @Sendable (CompletionChunk) -> Duration) async throws(ProviderError)
}

extension ChatProvider {
    /// Streams a completion where no one waits for its request to leave (a title, a test).
    public func streamCompletion(
        _ request: CompletionRequest,
        onChunk: @escaping @Sendable (CompletionChunk) -> Duration
    ) async throws(ProviderError) {
        try await streamCompletion(request, onSent: {}, onChunk: onChunk)
    }
}
