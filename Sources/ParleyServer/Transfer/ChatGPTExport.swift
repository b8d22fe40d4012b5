import Foundation
import ParleyCore

/// One conversation of ChatGPT's `conversations.json`: a tree of message nodes, of which the branch ending at
/// `current_node` is the conversation as the user last saw it.
struct ChatGPTConversation: Decodable {
    /// A node of the tree: a message (none at the root), its parent and its children.
    struct Node: Decodable {
        var message: ChatGPTMessage?
        var parent: String?
    }

    var title: String?
    var createTime: Double?
    var updateTime: Double?
    var mapping: [String: Node]
    var currentNode: String?
    var defaultModelSlug: String?

    enum CodingKeys: String, CodingKey {
        case title, mapping
        case createTime = "create_time", updateTime = "update_time", currentNode = "current_node"
        case defaultModelSlug = "default_model_slug"
    }

    /// The messages of the current branch, root first, found by walking parent links up from `current_node`;
    /// nil when the tree is broken (no current node, a missing node, a cycle).
    func currentBranch() -> [ChatGPTMessage]? {
        var branch: [ChatGPTMessage] = []
        var visited: Set<String> = []
        var nodeID = currentNode
        guard nodeID != nil else { return nil }
        while let id = nodeID {
            guard visited.insert(id).inserted, let node = mapping[id] else { return nil }
            if let message = node.message { branch.append(message) }
            nodeID = node.parent
        }
        return branch.reversed()
    }
}

/// A message of a ChatGPT export.
struct ChatGPTMessage: Decodable {
    /// Who wrote it: `user`, `assistant`, `system` or `tool`.
    struct Author: Decodable {
        var role: String
    }

    /// Its content: a type (`text`, `multimodal_text`, `code`, ...) and parts, of which only strings are text.
    struct Content: Decodable {
        var contentType: String
        var parts: [Part]?
        enum CodingKeys: String, CodingKey { case contentType = "content_type", parts }
    }

    /// A part of the content: text, or something else (an image pointer, ...), which is skipped.
    enum Part: Decodable {
        case text(String)
        case other

        init(from decoder: any Decoder) throws {
            self = (try? decoder.singleValueContainer().decode(String.self)).map(Part.text) ?? .other
        }
    }

    /// The model that wrote a reply.
    struct Metadata: Decodable {
        var modelSlug: String?
        enum CodingKeys: String, CodingKey { case modelSlug = "model_slug" }
    }

    var author: Author
    var content: Content?
    var createTime: Double?
    var metadata: Metadata?

    enum CodingKeys: String, CodingKey { case author, content, metadata, createTime = "create_time" }

    /// The text of a user or assistant text message; nil for other roles, other content and empty text.
    var text: String? {
        guard ["user", "assistant"].contains(author.role), let content,
            ["text", "multimodal_text"].contains(content.contentType)
        else { return nil }
        let text = (content.parts ?? []).compactMap { part -> String? in
            if case .text(let text) = part { return text }
            return nil
        }.joined(separator: "\n\n")
        return text.allSatisfy(\.isWhitespace) ? nil : text
    }
}
