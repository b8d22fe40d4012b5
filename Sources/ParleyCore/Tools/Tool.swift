/// A tool a model may call: its name as the model sees it (unique within a request, letters, digits, `_` and `-`,
/// at most 64 characters, as every vendor requires), what it does, and its parameters as a JSON Schema object (JSON
/// text).
public struct ToolDefinition: Sendable, Equatable {
    public var name: String
    public var description: String
    public var inputSchema: String

    /// Creates a definition.
    public init(name: String, description: String, inputSchema: String) {
        self.name = name
        self.description = description
        self.inputSchema = inputSchema
    }
}

/// A call a model asked for: its id (the vendor's, or one Parley made where the vendor gives none), the tool's name as
/// the model saw it, the arguments (JSON object text, as the model wrote it), and the vendor's opaque signature of
/// the reasoning behind it (Gemini's `thoughtSignature`), which goes back unchanged with the call within its reply and
/// is neither stored nor shown.
public struct ToolCall: Sendable, Equatable, Codable {
    public var id: String
    public var name: String
    public var arguments: String
    public var signature: String? = nil

    private enum CodingKeys: String, CodingKey { case id, name, arguments }

    /// Creates a call.
    public init(id: String, name: String, arguments: String, signature: String? = nil) {
        self.id = id
        self.name = name
        self.arguments = arguments
        self.signature = signature
    }
}

/// What a tool call gave, as the model is sent it: data, never instructions to Parley.
public struct ToolResult: Sendable, Equatable, Codable {
    /// The call it answers, and that call's tool name (Gemini matches results by name).
    public var callID: String
    public var name: String
    /// The result's text (truncated, with a note, past the size limit), or the error's.
    public var content: String
    public var isError: Bool

    /// Creates a result.
    public init(callID: String, name: String, content: String, isError: Bool) {
        self.callID = callID
        self.name = name
        self.content = content
        self.isError = isError
    }
}
