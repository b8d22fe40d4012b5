/// One Server-Sent Events message: its event name (empty when unnamed), its data lines joined by "\n",
/// and its `id:` when it had one.
public struct SSEMessage: Sendable, Equatable {
    public var event: String
    public var data: String
    public var id: String?

    /// Creates a message.
    public init(event: String = "", data: String, id: String? = nil) {
        self.event = event
        self.data = data
        self.id = id
    }
}

/// An incremental Server-Sent Events parser: feed it bytes as they arrive, in pieces of any size.
/// Handles `\n`, `\r\n` and `\r` line ends (also split across reads), multi-line `data:`, comments, and
/// removes only the one space after the colon, never trimming the text itself.
public struct SSEParser: Sendable {
    private var line: [UInt8] = []
    private var data: [UInt8] = []
    private var hasData = false
    private var event = ""
    private var id: String?
    private var afterCarriageReturn = false

    /// Creates an empty parser.
    public init() {}

    /// Parses more bytes, returning the messages they complete.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [SSEMessage] {
        var messages: [SSEMessage] = []
        for byte in bytes {
            if afterCarriageReturn {
                afterCarriageReturn = false
                if byte == UInt8(ascii: "\n") { continue }
            }
            switch byte {
            case UInt8(ascii: "\n"):
                endLine(into: &messages)
            case UInt8(ascii: "\r"):
                afterCarriageReturn = true
                endLine(into: &messages)
            default:
                line.append(byte)
            }
        }
        return messages
    }

    private mutating func endLine(into messages: inout [SSEMessage]) {
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else {
            if hasData {
                messages.append(SSEMessage(event: event, data: String(decoding: data, as: UTF8.self), id: id))
            }
            data.removeAll(keepingCapacity: true)
            hasData = false
            event = ""
            id = nil
            return
        }
        guard line[0] != UInt8(ascii: ":") else { return }
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        var valueStart = colon == line.endIndex ? colon : colon + 1
        if valueStart < line.endIndex, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let name = line[..<colon]
        if name.elementsEqual("data".utf8) {
            if hasData { data.append(UInt8(ascii: "\n")) }
            data.append(contentsOf: line[valueStart...])
            hasData = true
        } else if name.elementsEqual("event".utf8) {
            event = String(decoding: line[valueStart...], as: UTF8.self)
        } else if name.elementsEqual("id".utf8) {
            id = String(decoding: line[valueStart...], as: UTF8.self)
        }
    }
}
