import Foundation
import ParleyCore
import ParleyJSON

/// What the simulator needs from one chat request, whatever its wire format.
struct ChatRequest: Sendable {
    var model: String
    var stream: Bool
    var includeUsage: Bool
    var apiKey: String?
    var promptTokens: Int
    /// When the request arrived, in seconds since 1970 (OpenAI's `created`).
    var created: Int
    /// Whether the reply ends as cut at the output limit (`mock-length`) rather than finished.
    var endsAtLimit = false
    /// How many reasoning tokens the reply streams before its answer (`mock-think`).
    var reasoningTokens = 0
    /// How many tool calls the reply asks for after its answer (`mock-tools`).
    var toolCalls = 0

    /// Describes a request arriving now.
    init(model: String, stream: Bool, includeUsage: Bool, apiKey: String?, promptTokens: Int) {
        self.model = model
        self.stream = stream
        self.includeUsage = includeUsage
        self.apiKey = apiKey
        self.promptTokens = promptTokens
        self.created = Int(Date().timeIntervalSince1970)
    }
}

/// The fields of a chat request body the simulator reads, in any of the three wire formats, read in one pass over the
/// JSON where it lies: a general decoder cost the mock several milliseconds on a long conversation's request, on the
/// first-token path of every reply through Parley, which requests straight to the mock do not pay.
struct ChatRequestBody {
    /// `model`, when a string.
    var model: String?
    /// `stream`, when a boolean.
    var stream: Bool?
    /// `stream_options.include_usage`, when a boolean.
    var includeUsage: Bool?
    /// Characters of the message texts: the strings under the keys `isTextKey` names.
    var textLength = 0
    /// `stop` (OpenAI: a string or a list) or `stop_sequences` (Anthropic).
    var stop: [String] = []
    /// `max_tokens`, when a number.
    var maxTokens: Int?

    /// Reads `json`; throws `JSONCursor.Invalid` when it is not a JSON object.
    init(json: String) throws {
        self = try JSONCursor.readDocument(json) { cursor in
            var body = ChatRequestBody()
            try cursor.readObject { cursor, key in
                switch key {
                case "model":
                    guard try cursor.nextValueKind() == .string else { return try cursor.skipValue() }
                    body.model = try cursor.readString()
                case "stream": body.stream = try Self.bool(&cursor)
                case "stop", "stop_sequences": body.stop = try Self.strings(&cursor)
                case "max_tokens":
                    guard try cursor.nextValueKind() == .number else { return try cursor.skipValue() }
                    body.maxTokens = try cursor.readInt()
                case "stream_options":
                    guard try cursor.nextValueKind() == .object else { return try cursor.skipValue() }
                    try cursor.readObject { cursor, key in
                        guard case "include_usage" = key else { return try cursor.skipValue() }
                        body.includeUsage = try Self.bool(&cursor)
                    }
                default:
                    guard Self.isTextKey(key) else { return try cursor.skipValue() }
                    body.textLength += try Self.textLength(&cursor)
                }
            }
            return body
        }
    }

    private init() {}

    /// Rough prompt size: characters of all message texts / 4, at least 1.
    var promptTokens: Int { max(1, textLength / 4) }

    /// Keys whose values hold message text, in the OpenAI, Anthropic and Gemini request shapes.
    private static func isTextKey(_ key: JSONCursor.Key) -> Bool {
        switch key {
        case "messages", "contents", "system", "systemInstruction", "content", "parts", "text": true
        default: false
        }
    }

    /// Characters of the strings in the next value: itself, its array's elements, or its object's text keys' values,
    /// recursively.
    private static func textLength(_ cursor: inout JSONCursor) throws -> Int {
        var length = 0
        switch try cursor.nextValueKind() {
        case .string: length = try cursor.readString().count
        case .array: try cursor.readArray { cursor, _ in length += try textLength(&cursor) }
        case .object:
            try cursor.readObject { cursor, key in
                if isTextKey(key) { length += try textLength(&cursor) } else { try cursor.skipValue() }
            }
        default: try cursor.skipValue()
        }
        return length
    }

    /// The next value as strings: itself when a string, its string elements when an array, else none.
    private static func strings(_ cursor: inout JSONCursor) throws -> [String] {
        switch try cursor.nextValueKind() {
        case .string: return [try cursor.readString()]
        case .array:
            var strings: [String] = []
            try cursor.readArray { cursor, _ in
                if try cursor.nextValueKind() == .string {
                    strings.append(try cursor.readString())
                } else {
                    try cursor.skipValue()
                }
            }
            return strings
        default:
            try cursor.skipValue()
            return []
        }
    }

    /// The next value when it is a boolean (nil, and skipped, otherwise).
    private static func bool(_ cursor: inout JSONCursor) throws -> Bool? {
        guard try cursor.nextValueKind() == .bool else { try cursor.skipValue(); return nil }
        return try cursor.readBool()
    }
}
