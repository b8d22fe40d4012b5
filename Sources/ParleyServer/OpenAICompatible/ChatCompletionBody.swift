import Foundation
import ParleyCore

/// The body of `POST /v1/chat/completions` as OpenAI's clients send it (keys arrive in camel case through the API's
/// snake-case decoding policy). Fields Parley does not act on (`n` above 1 aside, which is refused) are ignored.
struct ChatCompletionBody: Decodable, Sendable {
    /// One message of the context.
    struct Message: Decodable, Sendable {
        var role: String
        var content: Content?
    }

    /// A message's content: a string, or text and image parts.
    enum Content: Decodable, Sendable {
        case text(String)
        case parts([Part])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                self = .text(text)
            } else {
                self = .parts(try container.decode([Part].self))
            }
        }
    }

    /// A part of a message's content: `{"type":"text","text":…}` or `{"type":"image_url","image_url":{"url":…}}`.
    struct Part: Decodable, Sendable {
        var type: String
        var text: String?
        var imageUrl: ImageURL?
    }

    /// An image part's address (Parley takes data URLs only: it fetches nothing on a caller's behalf).
    struct ImageURL: Decodable, Sendable {
        var url: String
    }

    /// Stop sequences: one string or a list.
    enum Stop: Decodable, Sendable {
        case one(String)
        case many([String])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let one = try? container.decode(String.self) {
                self = .one(one)
            } else {
                self = .many(try container.decode([String].self))
            }
        }

        var sequences: [String] {
            switch self {
            case .one(let one): [one]
            case .many(let many): many
            }
        }
    }

    /// `stream_options`.
    struct StreamOptions: Decodable, Sendable {
        var includeUsage: Bool?
    }

    var model: String
    var messages: [Message]
    var stream: Bool?
    var streamOptions: StreamOptions?
    var temperature: Double?
    var topP: Double?
    var maxTokens: Int?
    var maxCompletionTokens: Int?
    var stop: Stop?
    var reasoningEffort: String?
    var n: Int?
    var user: String?
}
