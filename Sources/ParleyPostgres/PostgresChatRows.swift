import Foundation
import ParleyCore
import PostgresNIO

extension Conversation {
    /// A conversation from a row of `conversations`.
    init(row: PostgresRandomAccessRow) throws {
        let assistantName = try row["assistant_name"].decode(String?.self)
        self.init(
            id: try row["id"].decode(Int64.self), userID: try row["user_id"].decode(Int64.self),
            title: try row["title"].decode(String.self), model: try row["model"].decode(String.self),
            systemPrompt: try row["system_prompt"].decode(String.self), createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at"), pinned: try row["pinned"].decode(Bool.self),
            archived: try row["archived"].decode(Bool.self),
            currentLeafID: try row["current_leaf_id"].decode(Int64?.self),
            options: GenerationOptions(json: try row["generation_settings"].decode(String?.self)),
            assistant: try assistantName.map { name in
                AssistantReference(
                    id: try row["assistant_id"].decode(Int64?.self), name: name,
                    version: Int(try row["assistant_version"].decode(Int64?.self) ?? 1))
            })
        usesKnowledge = try row["uses_knowledge"].decode(Bool.self)
        toolServers = try row["tool_servers"].decode(String?.self).map { StoredJSONList.decoded($0) }
    }
}

extension Message {
    /// The columns `init(row:)` reads, qualified by `table`.
    static func postgresColumns(of table: String = "messages") -> String {
        [
            "id", "conversation_id", "role", "content", "status", "model", "request_id", "parent_id", "prompt_tokens",
            "cached_prompt_tokens", "completion_tokens", "cost_micros", "usage_estimated", "error_code",
            "error_message", "created_at", "reasoning", "reasoning_tokens", "reasoning_ms", "sources",
            "document_tokens", "tool_steps",
        ].map { "\(table).\($0)" }.joined(separator: ", ")
    }

    /// A message from a row of `postgresColumns(of:)`.
    init(row: PostgresRandomAccessRow) throws {
        let failure = try row["error_code"].decode(String?.self).map {
            FailureReason(code: $0, message: try row["error_message"].decode(String?.self) ?? "")
        }
        self.init(
            id: try row["id"].decode(Int64.self), conversationID: try row["conversation_id"].decode(Int64.self),
            role: MessageRole(rawValue: try row["role"].decode(String.self)) ?? .user,
            content: try row["content"].decode(String.self), reasoning: try row["reasoning"].decode(String?.self),
            reasoningMilliseconds: try row["reasoning_ms"].decode(Int64?.self).map(Int.init),
            status: MessageStatus(rawValue: try row["status"].decode(String.self)) ?? .error,
            model: try row["model"].decode(String.self), requestID: try row["request_id"].decode(String?.self),
            parentID: try row["parent_id"].decode(Int64?.self),
            usage: Usage(
                promptTokens: Int(try row["prompt_tokens"].decode(Int64.self)),
                cachedPromptTokens: Int(try row["cached_prompt_tokens"].decode(Int64.self)),
                completionTokens: Int(try row["completion_tokens"].decode(Int64.self)),
                reasoningTokens: Int(try row["reasoning_tokens"].decode(Int64.self)),
                costMicros: try row["cost_micros"].decode(Int64.self),
                estimated: try row["usage_estimated"].decode(Bool.self)),
            failure: failure, createdAt: try row.date("created_at"))
        sources = StoredJSONList.decoded(try row["sources"].decode(String?.self))
        documentTokens = Int(try row["document_tokens"].decode(Int64.self))
        toolSteps = StoredJSONList.decoded(try row["tool_steps"].decode(String?.self))
    }
}

extension Attachment {
    /// An attachment from a row of `PostgresAttachmentRows.metadataColumns`.
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            id: try row["id"].decode(Int64.self), messageID: try row["message_id"].decode(Int64.self),
            format: ImageFormat(contentType: try row["content_type"].decode(String.self)) ?? .png,
            fileName: try row["file_name"].decode(String.self),
            byteCount: Int(try row["byte_count"].decode(Int64.self)), width: Int(try row["width"].decode(Int64.self)),
            height: Int(try row["height"].decode(Int64.self)), digest: try row["digest"].decode(String.self))
    }
}

extension AttachmentContent {
    /// An attachment with its bytes (`data`).
    init(row: PostgresRandomAccessRow) throws {
        self.init(attachment: try Attachment(row: row), bytes: [UInt8](try row["data"].decode(Data.self)))
    }
}

/// A page of rows fetched with one extra row to tell whether more follow.
func page<Item>(_ rows: [PostgresRandomAccessRow], limit: Int, _ make: (PostgresRandomAccessRow) throws -> Item)
    rethrows -> Page<Item>
{
    Page(items: try rows.prefix(limit).map(make), hasMore: rows.count > limit)
}
