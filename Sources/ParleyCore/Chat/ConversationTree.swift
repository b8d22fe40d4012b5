/// A conversation's messages as the tree their parents make: the branch that ends at a leaf, and each message's place
/// among its siblings (the versions of one turn, oldest first). A child is always written after its parent, so ids
/// order every branch from the root down.
public struct ConversationTree: Sendable {
    /// The messages, oldest first.
    public let messages: [Message]
    private let indexByID: [MessageID: Int]
    private let childrenByParent: [MessageID?: [MessageID]]

    /// The tree of `messages`, in any order.
    public init(_ messages: [Message]) {
        self.messages = messages.sorted { $0.id < $1.id }
        var indexByID: [MessageID: Int] = [:]
        var childrenByParent: [MessageID?: [MessageID]] = [:]
        for (index, message) in self.messages.enumerated() {
            indexByID[message.id] = index
            childrenByParent[message.parentID, default: []].append(message.id)
        }
        self.indexByID = indexByID
        self.childrenByParent = childrenByParent
    }

    /// The branch from the root down to `leaf`, oldest first, each message with its versions; empty for no leaf or one
    /// that is not in the tree.
    public func branch(endingAt leaf: MessageID?) -> [Message] {
        var path: [Message] = []
        var next = leaf
        while let id = next, let index = indexByID[id] {
            path.append(withVersions(messages[index]))
            next = messages[index].parentID
        }
        return path.reversed()
    }

    /// Every message, each with its versions.
    public var allWithVersions: [Message] { messages.map(withVersions) }

    /// A page of the messages `branch` selects (the branch ending at `leaf`, or all): those after `afterID`, at most
    /// `limit`.
    public func page(_ branch: BranchSelection, leaf: MessageID?, afterID: MessageID?, limit: Int) -> Page<Message> {
        let selected =
            switch branch {
            case .current: self.branch(endingAt: leaf)
            case .all: allWithVersions
            }
        let after = selected.drop { $0.id <= afterID ?? 0 }
        return Page(items: Array(after.prefix(limit)), hasMore: after.count > limit)
    }

    /// The newest leaf under `id` (the message itself when it has no children), or nil when it is not in the tree.
    /// The newest message under a node is always a leaf: anything written below it would be newer still.
    public func latestLeaf(under id: MessageID) -> MessageID? {
        guard indexByID[id] != nil else { return nil }
        return Self.subtree(of: id, children: childrenByParent).max()
    }

    /// `id` and every message under it, given each message's children.
    public static func subtree(of id: MessageID, children: [MessageID?: [MessageID]]) -> [MessageID] {
        var found = [id]
        var pending = [id]
        while let parent = pending.popLast() {
            let below = children[parent] ?? []
            found += below
            pending += below
        }
        return found
    }

    /// `message` with its position among the children of its parent.
    private func withVersions(_ message: Message) -> Message {
        var message = message
        let siblings = childrenByParent[message.parentID] ?? [message.id]
        let position = siblings.firstIndex(of: message.id) ?? 0
        message.versions = MessageVersions(
            index: position + 1, count: siblings.count,
            previous: position > 0 ? siblings[position - 1] : nil,
            next: position + 1 < siblings.count ? siblings[position + 1] : nil)
        return message
    }
}
