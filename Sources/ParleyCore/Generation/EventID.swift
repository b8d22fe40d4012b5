import Foundation

/// The `id:` of an event: the reply's message id and the event's place in that reply, so that an id names one event of
/// a conversation for good (across restarts). Sent short, as both numbers in base 62 joined by a dot (`4c9.2K`);
/// the decimal `message id × 10⁷ + sequence` that earlier versions sent is still read.
public struct EventID: Sendable, Equatable, Comparable {
    /// How many events one reply may number; the `done` event always takes the last one.
    static let span: Int64 = 10_000_000
    /// The sequence number of a reply's `done` event.
    public static let doneSequence: Int64 = span - 1

    public var messageID: MessageID
    public var sequence: Int64

    /// Creates an id from its parts (message ids are positive; the sequence is kept within 0...`doneSequence`).
    public init(messageID: MessageID, sequence: Int64) {
        self.messageID = messageID
        self.sequence = min(max(sequence, 0), EventID.doneSequence)
    }

    /// Parses a `Last-Event-ID` in either form Parley has sent; nil for anything that is not one of ours.
    public init?(_ text: String) {
        let text = text.trimmingCharacters(in: .whitespaces)
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if parts.count == 2 {
            guard let messageID = Self.number(base62: parts[0]), messageID > 0,
                let sequence = Self.number(base62: parts[1]), sequence <= Self.doneSequence
            else { return nil }
            self.init(messageID: messageID, sequence: sequence)
        } else {
            guard let value = Int64(text), value > 0 else { return nil }
            self.init(messageID: value / EventID.span, sequence: value % EventID.span)
        }
    }

    /// The id as sent.
    public var text: String {
        var bytes: [UInt8] = []
        append(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the id as sent.
    func append(to bytes: inout [UInt8]) {
        Self.appendBase62(messageID, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        Self.appendBase62(sequence, to: &bytes)
    }

    /// Whether this is the id of a reply's `done` event.
    public var isDone: Bool { sequence == EventID.doneSequence }

    /// Ids order as their events were sent: by reply, then by place in the reply.
    public static func < (lhs: EventID, rhs: EventID) -> Bool {
        (lhs.messageID, lhs.sequence) < (rhs.messageID, rhs.sequence)
    }

    /// Appends a non-negative number's base-62 digits (`0`–`9`, `a`–`z`, `A`–`Z`), most significant first.
    private static func appendBase62(_ value: Int64, to bytes: inout [UInt8]) {
        var count = 1
        var probe = value / 62
        while probe > 0 {
            count += 1
            probe /= 62
        }
        bytes.append(contentsOf: repeatElement(0, count: count))
        var index = bytes.count
        var rest = value
        repeat {
            index -= 1
            let digit = UInt8(rest % 62)
            bytes[index] = digit < 10 ? digit + 48 : digit < 36 ? digit + 87 : digit + 29
            rest /= 62
        } while rest > 0
    }

    /// The value of 1 to 11 base-62 digits; nil for anything else or a value past `Int64.max`.
    private static func number(base62 text: Substring.UTF8View) -> Int64? {
        guard (1...11).contains(text.count) else { return nil }
        var value: Int64 = 0
        for byte in text {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - 48
            case UInt8(ascii: "a")...UInt8(ascii: "z"): digit = byte - 87
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): digit = byte - 29
            default: return nil
            }
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 62)
            let (sum, carry) = shifted.addingReportingOverflow(Int64(digit))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }
}
