import Foundation
import GRDB
import ParleyCore

/// Builds the core's values from database rows, in one place.
extension User {
    init(row: Row) {
        self.init(
            id: row["id"], email: row["email"], passwordHash: row["password_hash"], isAdmin: row["is_admin"],
            isDisabled: row["is_disabled"], createdAt: row.date("created_at"), ssoSubject: row["sso_subject"],
            displayName: row["display_name"])
    }
}

extension Conversation {
    init(row: Row) {
        self.init(
            id: row["id"], userID: row["user_id"], title: row["title"], model: row["model"],
            systemPrompt: row["system_prompt"], createdAt: row.date("created_at"), updatedAt: row.date("updated_at"),
            pinned: row["pinned"], archived: row["archived"], currentLeafID: row["current_leaf_id"],
            options: GenerationOptions(json: row["generation_settings"]),
            assistant: (row["assistant_name"] as String?).map {
                AssistantReference(id: row["assistant_id"], name: $0, version: row["assistant_version"] ?? 1)
            })
        usesKnowledge = row["uses_knowledge"] ?? false
        toolServers = (row["tool_servers"] as String?).map { StoredJSONList.decoded($0) }
    }
}

extension Message {
    /// The columns `init(row:)` reads, in the order it reads them.
    private static let columnNames = [
        "id", "conversation_id", "role", "content", "status", "model", "request_id", "parent_id",
        "prompt_tokens", "cached_prompt_tokens", "completion_tokens", "cost_micros",
        "usage_estimated", "error_code", "error_message", "created_at", "reasoning", "reasoning_tokens",
        "reasoning_ms", "sources", "document_tokens", "tool_steps",
    ]

    /// The select list for `init(row:)`, qualified by `table` (a table name or alias).
    static func columns(of table: String = "messages") -> String {
        columnNames.map { "\(table).\($0)" }.joined(separator: ", ")
    }

    /// A message from a row selected with `columns(of:)`. It reads by position: GRDB's lookup by name compares
    /// lowercased names, which was a tenth of the time of a 1,000-message page.
    init(row: Row) {
        let failure: FailureReason? = (row[13] as String?).map { FailureReason(code: $0, message: row[14] ?? "") }
        self.init(
            id: row[0], conversationID: row[1], role: MessageRole(rawValue: row[2]) ?? .user, content: row[3],
            reasoning: row[16], reasoningMilliseconds: row[18], status: MessageStatus(rawValue: row[4]) ?? .error,
            model: row[5], requestID: row[6], parentID: row[7],
            usage: Usage(
                promptTokens: row[8], cachedPromptTokens: row[9], completionTokens: row[10], reasoningTokens: row[17],
                costMicros: row[11], estimated: row[12]),
            failure: failure, createdAt: row.date(15))
        sources = StoredJSONList.decoded(row[19])
        documentTokens = row[20]
        toolSteps = StoredJSONList.decoded(row[21])
    }
}

extension HistoryMessage {
    /// A history message from a row of `id, role, content`, read by position.
    init(row: Row) {
        self.init(id: row[0], role: MessageRole(rawValue: row[1]) ?? .user, content: row[2])
    }
}

/// A page of rows fetched with one extra row to tell whether more follow.
func page<Item>(_ rows: [Row], limit: Int, _ make: (Row) -> Item) -> Page<Item> {
    Page(items: rows.prefix(limit).map(make), hasMore: rows.count > limit)
}

extension Share {
    init(row: Row) {
        self.init(
            id: row["id"], userID: row["user_id"], conversationID: row["conversation_id"], title: row["title"],
            model: row["model"], authorName: row["author_name"], createdAt: row.date("created_at"),
            snapshotAt: row.date("snapshot_at"), expiresAt: row.optionalDate("expires_at"), views: row["views"],
            includesReasoning: row["include_reasoning"])
    }
}

extension Message {
    /// A snapshot message of a share (a `share_messages` row joined with its share's `conversation_id`); its
    /// reasoning is there only when the share includes it.
    init(sharedRow row: Row) {
        self.init(
            id: row["id"], conversationID: row["conversation_id"],
            role: MessageRole(rawValue: row["role"]) ?? .user, content: row["content"], reasoning: row["reasoning"],
            reasoningMilliseconds: row["reasoning_ms"], status: MessageStatus(rawValue: row["status"]) ?? .complete,
            model: row["model"],
            createdAt: row.date("created_at"))
        toolSteps = StoredJSONList.decoded(row["tool_steps"] as String?)
    }
}
