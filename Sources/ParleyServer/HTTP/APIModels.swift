import Foundation
import ParleyCore

/// A conversation in the JSON API (and in export files, hence decodable too).
struct ConversationJSON: Codable {
    var id: ConversationID
    var title: String
    var model: String
    var systemPrompt: String
    var createdAt: Date
    var updatedAt: Date
    var pinned: Bool
    var archived: Bool
    /// The last message of the branch shown (absent from exports written before conversations were trees).
    var currentLeafId: MessageID?
    /// The conversation's own generation options (absent from exports written before they existed).
    var settings: GenerationOptions?
    /// The assistant it was started with: `{"id","name","version"}` (`id` absent once the assistant was deleted).
    var assistant: AssistantJSON?
    /// The MCP servers whose tools its replies may call (absent: those on by default).
    var toolServers: [String]?

    /// The assistant a conversation was started with.
    struct AssistantJSON: Codable {
        var id: AssistantID?
        var name: String
        var version: Int
    }

    init(_ conversation: Conversation) {
        id = conversation.id
        title = conversation.title
        model = conversation.model
        systemPrompt = conversation.systemPrompt
        createdAt = conversation.createdAt
        updatedAt = conversation.updatedAt
        pinned = conversation.pinned
        archived = conversation.archived
        currentLeafId = conversation.currentLeafID
        settings = conversation.options
        assistant = conversation.assistant.map { AssistantJSON(id: $0.id, name: $0.name, version: $0.version) }
        toolServers = conversation.toolServers
    }
}

/// A message in the JSON API (and in export files, hence decodable too); `reasoning` only when the model showed some,
/// and `reasoning_ms` only when how long it took is known.
struct MessageJSON: Codable {
    struct UsageJSON: Codable {
        var promptTokens: Int
        var completionTokens: Int
        /// The part of `completionTokens` spent reasoning (absent from exports written before reasoning was kept).
        var reasoningTokens: Int?
        var costUsd: Double
        var estimated: Bool
    }
    struct ErrorJSON: Codable {
        var code: String
        var message: String
    }
    struct AttachmentJSON: Codable {
        var id: Int64
        var contentType: String
        var bytes: Int
    }
    var id: MessageID
    /// The message it follows in its branch (nil for the first).
    var parentId: MessageID?
    /// Its place among the versions of its turn, from 1, and how many there are.
    var siblingIndex: Int?
    var siblingCount: Int?
    var role: String
    var content: String
    /// The model's reasoning before its answer.
    var reasoning: String?
    /// How long the model reasoned, in milliseconds (absent from exports written before it was kept).
    var reasoningMs: Int?
    var status: String
    var model: String
    var createdAt: Date
    var usage: UsageJSON
    var attachments: [AttachmentJSON] = []
    /// The documents sent with a user message (absent from exports written before documents were kept).
    var documents: [DocumentJSON]?
    /// The numbered sources a reply was given.
    var sources: [SourceJSON]?
    /// The input tokens of a reply that were its sources' text.
    var documentTokens: Int?
    /// The tool calls a reply made, with how each went.
    var toolSteps: [ToolStep]?
    var error: ErrorJSON?

    init(_ message: Message) {
        id = message.id
        parentId = message.parentID
        siblingIndex = message.versions.index
        siblingCount = message.versions.count
        role = message.role.rawValue
        content = message.content
        reasoning = message.reasoning
        reasoningMs = message.reasoningMilliseconds
        status = message.status.rawValue
        model = message.model
        createdAt = message.createdAt
        usage = UsageJSON(
            promptTokens: message.usage.promptTokens, completionTokens: message.usage.completionTokens,
            reasoningTokens: message.usage.reasoningTokens, costUsd: message.usage.costUSD,
            estimated: message.usage.estimated)
        attachments = message.attachments.map {
            AttachmentJSON(id: $0.id, contentType: $0.format.contentType, bytes: $0.byteCount)
        }
        documents = message.documents.map(DocumentJSON.init)
        sources = message.sources.map(SourceJSON.init)
        documentTokens = message.documentTokens
        toolSteps = message.toolSteps
        error = message.failure.map { ErrorJSON(code: $0.code, message: $0.message) }
    }
}

/// A page of a list in the JSON API.
struct ListJSON<Item: Encodable>: Encodable {
    var data: [Item]
    var hasMore: Bool
}

/// A search hit in the JSON API: the title and snippet as plain text, and as HTML with the matches in `<mark>`;
/// `message_id` and `role` absent when the title matched.
struct SearchHitJSON: Encodable {
    var conversationId: ConversationID
    var title: String
    var titleHtml: String
    var messageId: MessageID?
    var role: String?
    var snippet: String
    var snippetHtml: String
    var archived: Bool

    init(_ hit: SearchHit) {
        conversationId = hit.conversationID
        title = Self.plain(hit.title)
        titleHtml = SearchResultView.html(marked: hit.title)
        messageId = hit.messageID
        role = hit.role?.rawValue
        snippet = Self.plain(hit.snippet)
        snippetHtml = SearchResultView.html(marked: hit.snippet)
        archived = hit.archived
    }

    /// Marked text without its marks.
    private static func plain(_ text: String) -> String {
        text.filter { $0 != SearchHit.markStart && $0 != SearchHit.markEnd }
    }
}
