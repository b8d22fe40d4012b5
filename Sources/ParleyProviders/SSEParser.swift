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
    public mutating func feed(_ bytes: some Collection<UInt8>) -> [SSEMessage] {
        if let messages = bytes.withContiguousStorageIfAvailable({ feed(contiguous: $0) }) { return messages }
        return Array(bytes).withUnsafeBufferPointer { feed(contiguous: $0) }
    }

    /// Finds the line ends with a scan that copies nothing; a line wholly inside `bytes` is read where it lies, and
    /// only a line split across reads is gathered in `line`.
    private mutating func feed(contiguous bytes: UnsafeBufferPointer<UInt8>) -> [SSEMessage] {
        var messages: [SSEMessage] = []
        var lineStart = 0
        var index = 0
        if afterCarriageReturn, let first = bytes.first {
            afterCarriageReturn = false
            if first == UInt8(ascii: "\n") { (index, lineStart) = (1, 1) }
        }
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") else {
                index += 1
                continue
            }
            let piece = UnsafeBufferPointer(rebasing: bytes[lineStart..<index])
            if line.isEmpty {
                endLine(piece, into: &messages)
            } else {
                // Taken out of `self` while it is read, since `endLine` mutates `self`; its storage comes back emptied.
                var gathered: [UInt8] = []
                swap(&gathered, &line)
                gathered.append(contentsOf: piece)
                gathered.withUnsafeBufferPointer { endLine($0, into: &messages) }
                gathered.removeAll(keepingCapacity: true)
                line = gathered
            }
            index += 1
            if byte == UInt8(ascii: "\r") {
                // A "\r\n" is one line end; its "\n" may come with the next read.
                if index == bytes.count {
                    afterCarriageReturn = true
                } else if bytes[index] == UInt8(ascii: "\n") {
                    index += 1
                }
            }
            lineStart = index
        }
        line.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[lineStart...]))
        return messages
    }

    private mutating func endLine(_ line: UnsafeBufferPointer<UInt8>, into messages: inout [SSEMessage]) {
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
        let name = UnsafeBufferPointer(rebasing: line[..<colon])
        let value = UnsafeBufferPointer(rebasing: line[valueStart...])
        if name.elementsEqual("data".utf8) {
            if hasData { data.append(UInt8(ascii: "\n")) }
            data.append(contentsOf: value)
            hasData = true
        } else if name.elementsEqual("event".utf8) {
            event = String(decoding: value, as: UTF8.self)
        } else if name.elementsEqual("id".utf8) {
            id = String(decoding: value, as: UTF8.self)
        }
    }
}
