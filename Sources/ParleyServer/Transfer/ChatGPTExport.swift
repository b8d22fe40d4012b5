import Foundation
import ParleyCore

/// One conversation of ChatGPT's `conversations.json`: a tree of message nodes (an edited question or a regenerated
/// reply has siblings), of which the branch ending at `current_node` is the conversation as the user last saw it.
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

    /// A message kept from the tree, numbered so that a parent comes before its children and siblings go in the
    /// order they were written.
    struct Kept {
        var number: Int64
        var parent: Int64?
        var message: ChatGPTMessage
        var text: String
    }

    /// Every message with text, root first and siblings by time, each under its nearest ancestor with text, and the
    /// number of the one that ends the current branch; nil when the tree is broken (no current node, or one that does
    /// not lead back to a root).
    func tree() -> (messages: [Kept], current: Int64?)? {
        guard let currentNode, leadsToRoot(currentNode) else { return nil }
        var children: [String?: [String]] = [:]
        for (id, node) in mapping {
            let parent = node.parent.flatMap { mapping[$0] == nil ? nil : $0 }
            children[parent, default: []].append(id)
        }
        let byTime: (String, String) -> Bool = { a, b in
            let (x, y) = (mapping[a]?.message?.createTime ?? 0, mapping[b]?.message?.createTime ?? 0)
            return x == y ? a < b : x < y
        }
        var kept: [Kept] = []
        var numbers: [String: Int64] = [:]
        var visited: Set<String> = []
        // Depth first from the roots, with a stack of (node, the number of its nearest kept ancestor).
        var pending: [(String, Int64?)] = (children[nil] ?? []).sorted(by: byTime).reversed().map { ($0, nil) }
        while let (id, parent) = pending.popLast() {
            guard visited.insert(id).inserted, let node = mapping[id] else { continue }
            var nearest = parent
            if let message = node.message, let text = message.text {
                let number = Int64(kept.count + 1)
                kept.append(Kept(number: number, parent: parent, message: message, text: text))
                nearest = number
            }
            numbers[id] = nearest
            pending += (children[id] ?? []).sorted(by: byTime).reversed().map { ($0, nearest) }
        }
        return (kept, numbers[currentNode])
    }

    /// Whether walking parent links up from `id` reaches a root without a missing node or a cycle.
    private func leadsToRoot(_ id: String) -> Bool {
        var visited: Set<String> = []
        var nodeID: String? = id
        while let id = nodeID {
            guard visited.insert(id).inserted, let node = mapping[id] else { return false }
            nodeID = node.parent
        }
        return true
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
