import Foundation
import ParleyCore

/// The text of the relay's notifications. A payload starts with its sender's instance id and its number among that
/// sender's payloads (`<uuid> <n>\n`), then holds records back to back, or `@<id>`: a row of `relay_payloads` holding
/// them, for records longer than a notification may be. Records:
/// - `E <conversation> <message> <sequence> <kind> <length>\n<fields>`: an event of a reply;
/// - `S <conversation>\n`: stop the reply running there;
/// - `D <conversation> <allow: 0 or 1> <length>\n<call id>`: the answer to a tool call the reply there waits on;
/// - `T <conversation> <length>\n<frame>`: a new title.
enum RelayWire {
    /// The notification channel.
    static let channel = "parley_relay"
    /// The longest payload sent as a notification: PostgreSQL refuses 8,000 bytes and more.
    static let notificationLimit = 7_900

    /// What one record says.
    enum Record: Equatable {
        case event(RelayedEvent)
        case stop(ConversationID)
        case decision(ConversationID, callID: String, allow: Bool)
        case title(ConversationID, frame: String)

        /// What the receiving instance acts on.
        var message: RelayMessage {
            switch self {
            case .event(let event): .event(event)
            case .stop(let conversationID): .stop(conversationID)
            case .decision(let conversationID, let callID, let allow):
                .decision(conversationID, callID: callID, allow: allow)
            case .title(let conversationID, let frame): .title(conversationID, frame: frame)
            }
        }

        /// The record's bytes.
        var bytes: [UInt8] {
            switch self {
            case .event(let event):
                let id = "\(event.id.messageID) \(event.id.sequence)"
                let head = "E \(event.conversationID) \(id) \(event.kind.rawValue) \(event.fields.count)\n"
                return Array(head.utf8) + event.fields
            case .stop(let conversationID):
                return Array("S \(conversationID)\n".utf8)
            case .decision(let conversationID, let callID, let allow):
                return Array("D \(conversationID) \(allow ? 1 : 0) \(callID.utf8.count)\n\(callID)".utf8)
            case .title(let conversationID, let frame):
                return Array("T \(conversationID) \(frame.utf8.count)\n\(frame)".utf8)
            }
        }
    }

    /// A payload's parts: who sent it, its number, and its records or the row that holds them.
    struct Payload: Equatable {
        enum Body: Equatable {
            case records([UInt8])
            case stored(Int64)
        }
        var sender: UUID
        var number: Int64
        var body: Body
    }

    /// The header every payload of `sender` starts with.
    static func header(sender: UUID, number: Int64) -> String {
        "\(sender.uuidString) \(number)\n"
    }

    /// A payload read back; nil for anything else on the channel.
    static func payload(_ text: String) -> Payload? {
        let bytes = Array(text.utf8)
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let head = String(decoding: bytes[..<newline], as: UTF8.self).split(separator: " ")
        guard head.count == 2, let sender = UUID(uuidString: String(head[0])), let number = Int64(head[1]) else {
            return nil
        }
        let body = Array(bytes[(newline + 1)...])
        if body.first == UInt8(ascii: "@") {
            guard let id = Int64(String(decoding: body.dropFirst(), as: UTF8.self)) else { return nil }
            return Payload(sender: sender, number: number, body: .stored(id))
        }
        return Payload(sender: sender, number: number, body: .records(body))
    }

    /// The records of a payload's body, in order; nil when it is not made of records.
    static func records(_ body: [UInt8]) -> [Record]? {
        var records: [Record] = []
        var index = 0
        while index < body.count {
            guard let newline = body[index...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            let words = String(decoding: body[index..<newline], as: UTF8.self).split(separator: " ")
            let numbers = words.dropFirst().map { Int64($0) }
            guard let kind = words.first, !numbers.contains(nil) else { return nil }
            let values = numbers.compactMap { $0 }
            index = newline + 1
            switch (kind, values.count) {
            case ("S", 1):
                records.append(.stop(values[0]))
            case ("D", 3):
                guard values[1] == 0 || values[1] == 1, let callID = take(Int(values[2]), from: body, at: &index)
                else { return nil }
                records.append(
                    .decision(values[0], callID: String(decoding: callID, as: UTF8.self), allow: values[1] == 1))
            case ("T", 2):
                guard let text = take(Int(values[1]), from: body, at: &index) else { return nil }
                records.append(.title(values[0], frame: String(decoding: text, as: UTF8.self)))
            case ("E", 5):
                guard let kind = UInt8(exactly: values[3]).flatMap(StreamEvent.Kind.init(rawValue:)),
                    let fields = take(Int(values[4]), from: body, at: &index)
                else { return nil }
                let id = EventID(messageID: values[1], sequence: values[2])
                records.append(.event(RelayedEvent(conversationID: values[0], id: id, kind: kind, fields: fields)))
            default:
                return nil
            }
        }
        return records
    }

    /// The bodies that carry `records` in order, each as long as a notification may be with its header: records are
    /// packed together while they fit, and a record too long alone gets a body of its own (to be stored).
    static func bodies(_ records: [Record]) -> [[UInt8]] {
        let room = notificationLimit - header(sender: UUID(), number: Int64.max).utf8.count
        var bodies: [[UInt8]] = []
        var current: [UInt8] = []
        for record in records {
            let bytes = record.bytes
            if !current.isEmpty, current.count + bytes.count > room {
                bodies.append(current)
                current = []
            }
            current += bytes
        }
        if !current.isEmpty { bodies.append(current) }
        return bodies
    }

    /// `count` bytes of `body` from `index`, moving past them; nil when fewer remain.
    private static func take(_ count: Int, from body: [UInt8], at index: inout Int) -> [UInt8]? {
        guard count >= 0, body.count - index >= count else { return nil }
        defer { index += count }
        return Array(body[index..<(index + count)])
    }
}
