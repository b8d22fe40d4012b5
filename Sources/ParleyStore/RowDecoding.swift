import Foundation
import GRDB
import ParleyCore

/// Builds the core's values from database rows, in one place.
extension User {
    init(row: Row) {
        self.init(id: row["id"], email: row["email"], passwordHash: row["password_hash"], isAdmin: row["is_admin"],
                  isDisabled: row["is_disabled"], createdAt: row["created_at"])
    }
}

extension Conversation {
    init(row: Row) {
        self.init(id: row["id"], userID: row["user_id"], title: row["title"], model: row["model"],
                  systemPrompt: row["system_prompt"], createdAt: row["created_at"], updatedAt: row["updated_at"],
                  pinned: row["pinned"], archived: row["archived"])
    }
}

extension Message {
    init(row: Row) {
        let failure: FailureReason? = (row["error_code"] as String?).map {
            FailureReason(code: $0, message: row["error_message"] ?? "")
        }
        self.init(id: row["id"], conversationID: row["conversation_id"],
                  role: MessageRole(rawValue: row["role"]) ?? .user, content: row["content"],
                  status: MessageStatus(rawValue: row["status"]) ?? .error, model: row["model"],
                  requestID: row["request_id"], parentID: row["parent_id"],
                  usage: Usage(promptTokens: row["prompt_tokens"], cachedPromptTokens: row["cached_prompt_tokens"],
                               completionTokens: row["completion_tokens"], costMicros: row["cost_micros"],
                               estimated: row["usage_estimated"]),
                  failure: failure, createdAt: row["created_at"])
    }
}

/// A page of rows fetched with one extra row to tell whether more follow.
func page<Item>(_ rows: [Row], limit: Int, _ make: (Row) -> Item) -> Page<Item> {
    Page(items: rows.prefix(limit).map(make), hasMore: rows.count > limit)
}

extension Share {
    init(row: Row) {
        self.init(id: row["id"], userID: row["user_id"], conversationID: row["conversation_id"], title: row["title"],
                  model: row["model"], authorName: row["author_name"], createdAt: row["created_at"],
                  snapshotAt: row["snapshot_at"], expiresAt: row["expires_at"], views: row["views"])
    }
}

extension Message {
    /// A snapshot message of a share (a `share_messages` row joined with its share's `conversation_id`).
    init(sharedRow row: Row) {
        self.init(id: row["id"], conversationID: row["conversation_id"],
                  role: MessageRole(rawValue: row["role"]) ?? .user, content: row["content"],
                  status: MessageStatus(rawValue: row["status"]) ?? .complete, model: row["model"],
                  createdAt: row["created_at"])
    }
}
