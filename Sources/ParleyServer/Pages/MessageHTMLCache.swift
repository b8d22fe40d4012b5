import ParleyCore
import Synchronization

/// The owner's view of finished messages, kept so that a long conversation is not rendered to HTML again on every
/// view. A message's HTML does not change once its reply has ended: its text, status, model and usage are written
/// once, at the end. A reply still streaming is never kept, and an entry is only used while the message's status,
/// text length and versions still match it. The oldest entries go first once the cache holds `budgetBytes` of HTML.
final class MessageHTMLCache: Sendable {
    /// One kept rendering and what it was made from.
    private struct Entry {
        var html: String
        var status: MessageStatus
        var contentBytes: Int
        var versions: MessageVersions
        var conversationID: ConversationID

        /// Whether this entry was rendered from `message` as it is now.
        func matches(_ message: Message) -> Bool {
            status == message.status && contentBytes == message.content.utf8.count && versions == message.versions
        }
    }

    /// The entries and the order they came in.
    private struct State {
        var entries: [MessageID: Entry] = [:]
        var arrivals: [MessageID] = []
        var oldest = 0
        var bytes = 0

        /// Keeps `entry`, then drops the oldest entries until the HTML kept fits in `budget`.
        mutating func keep(_ entry: Entry, for id: MessageID, budget: Int) {
            if let replaced = entries.updateValue(entry, forKey: id) {
                bytes -= replaced.html.utf8.count
            } else {
                arrivals.append(id)
            }
            bytes += entry.html.utf8.count
            while bytes > budget, oldest < arrivals.count {
                if let dropped = entries.removeValue(forKey: arrivals[oldest]) { bytes -= dropped.html.utf8.count }
                oldest += 1
            }
            if oldest > 1_024, oldest * 2 > arrivals.count {
                arrivals.removeFirst(oldest)
                oldest = 0
            }
        }

        /// Drops the entries of `conversation`'s messages, and their places in the order.
        mutating func forget(_ conversation: ConversationID) {
            let gone = entries.filter { $0.value.conversationID == conversation }
            guard !gone.isEmpty else { return }
            for (id, entry) in gone {
                entries[id] = nil
                bytes -= entry.html.utf8.count
            }
            arrivals = arrivals[oldest...].filter { entries[$0] != nil }
            oldest = 0
        }
    }

    private let state = Mutex(State())
    /// The most HTML kept, in bytes.
    let budgetBytes: Int

    /// An empty cache holding at most `budgetBytes` of HTML.
    init(budgetBytes: Int = 32 << 20) {
        self.budgetBytes = budgetBytes
    }

    /// The owner's HTML of `message`: kept if it has ended, rendered by `MessageView` when not kept yet.
    func html(_ message: Message) -> String {
        guard message.status != .streaming else { return MessageView.html(message) }
        if let kept = state.withLock({ $0.entries[message.id] }), kept.matches(message) { return kept.html }
        let html = MessageView.html(message)
        let entry = Entry(
            html: html, status: message.status, contentBytes: message.content.utf8.count,
            versions: message.versions, conversationID: message.conversationID)
        state.withLock { $0.keep(entry, for: message.id, budget: budgetBytes) }
        return html
    }

    /// Drops the HTML kept for a deleted conversation's messages, so that it takes no memory until evicted.
    func forget(conversation: ConversationID) {
        state.withLock { $0.forget(conversation) }
    }

    /// The HTML kept, in bytes.
    var keptBytes: Int { state.withLock { $0.bytes } }

    /// Whether `id`'s HTML is kept.
    func isKept(_ id: MessageID) -> Bool { state.withLock { $0.entries[id] != nil } }
}
