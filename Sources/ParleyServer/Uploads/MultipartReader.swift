/// Reads a `multipart/form-data` body (RFC 7578, RFC 2046) as it streams in, reporting each part's headers, body
/// bytes and end. It holds at most one chunk plus a delimiter's length of the body, and a part's headers are limited
/// to `maxHeaderBytes`. (It replaced multipart-kit's parser, which traps on a non-ASCII byte in a header name: a
/// crash of the whole server that `make fuzz` found.)
struct MultipartReader {
    /// What the body holds, in order.
    enum Event {
        case header(name: String, value: String)
        case body(ArraySlice<UInt8>)
        case partComplete
    }

    /// The body does not follow the multipart syntax.
    struct Malformed: Error {}

    private enum State {
        case preamble, afterDelimiter, headers, body, finished
    }

    /// The most bytes one part's headers may take.
    static let maxHeaderBytes = 16 * 1024
    private static let cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n"), dash = UInt8(ascii: "-"),
        colon = UInt8(ascii: ":")
    private static let lineEnd: [UInt8] = [cr, lf]
    private static let tokenSymbols = Set("!#$%&'*+-.^_`|~".utf8)

    /// `CRLF--boundary`, which ends every part (the body is read as if it began with a CRLF, so the first one too).
    private let delimiter: [UInt8]
    private var state = State.preamble
    private var pending: [UInt8] = [cr, lf]
    private var headerBytes = 0

    /// A reader for parts separated by `boundary`.
    init(boundary: String) {
        delimiter = Self.lineEnd + Array("--\(boundary)".utf8)
    }

    /// Whether the closing delimiter has been read.
    var isFinished: Bool { state == .finished }

    /// Reads the next bytes of the body, reporting what they complete to `emit`.
    mutating func feed(_ bytes: some Collection<UInt8>, _ emit: (Event) -> Void) throws(Malformed) {
        pending.append(contentsOf: bytes)
        var start = 0
        reading: while true {
            switch state {
            case .preamble, .body:
                guard let found = Self.find(delimiter, in: pending, from: start) else {
                    // A delimiter may begin in the last bytes: keep them for the next chunk.
                    let safe = max(start, pending.count - (delimiter.count - 1))
                    if state == .body, safe > start { emit(.body(pending[start..<safe])) }
                    start = safe
                    break reading
                }
                if state == .body {
                    if found > start { emit(.body(pending[start..<found])) }
                    emit(.partComplete)
                }
                start = found + delimiter.count
                state = .afterDelimiter
            case .afterDelimiter:
                // `--` closes the body; otherwise optional white space and a CRLF open the next part.
                guard pending.count - start >= 2 else { break reading }
                if pending[start] == Self.dash, pending[start + 1] == Self.dash {
                    state = .finished
                    continue reading
                }
                guard let lineEnd = Self.find(Self.lineEnd, in: pending, from: start) else {
                    guard pending.count - start <= 64 else { throw Malformed() }
                    break reading
                }
                guard pending[start..<lineEnd].allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") })
                else { throw Malformed() }
                start = lineEnd + 2
                headerBytes = 0
                state = .headers
            case .headers:
                guard let lineEnd = Self.find(Self.lineEnd, in: pending, from: start) else {
                    guard headerBytes + pending.count - start <= Self.maxHeaderBytes else { throw Malformed() }
                    break reading
                }
                headerBytes += lineEnd - start + 2
                guard headerBytes <= Self.maxHeaderBytes else { throw Malformed() }
                let line = pending[start..<lineEnd]
                start = lineEnd + 2
                if line.isEmpty {
                    state = .body
                } else {
                    emit(try Self.header(line))
                }
            case .finished:
                start = pending.count  // the epilogue is ignored
                break reading
            }
        }
        pending.removeFirst(start)
    }

    /// A `Name: value` header line; the name must be an HTTP token, the value may be any UTF-8.
    private static func header(_ line: ArraySlice<UInt8>) throws(Malformed) -> Event {
        guard let colon = line.firstIndex(of: Self.colon), colon > line.startIndex,
            line[..<colon].allSatisfy(isTokenCharacter)
        else { throw Malformed() }
        let value = line[(colon + 1)...].drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        return .header(
            name: String(decoding: line[..<colon], as: UTF8.self), value: String(decoding: value, as: UTF8.self))
    }

    /// Whether `byte` may be part of a header name (RFC 9110 `tchar`).
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return tokenSymbols.contains(byte)
        }
    }

    /// Where `needle` first occurs whole in `haystack` at or after `start`.
    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        var index = start
        while index < haystack.count, let candidate = haystack[index...].firstIndex(of: needle[0]) {
            guard haystack.count - candidate >= needle.count else { return nil }
            if haystack[candidate..<(candidate + needle.count)].elementsEqual(needle) { return candidate }
            index = candidate + 1
        }
        return nil
    }
}
