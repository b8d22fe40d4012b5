/// Makes a reply's citations links: in rendered HTML, each `[n]` or `[n, m]` in text (not inside a tag, a link, or
/// code) whose numbers all have a link becomes those numbers linked, the brackets kept.
public enum CitationLinks {
    /// `html` with its citations linked to `links` (a source's number to its URL, which must need no escaping).
    public static func html(_ html: String, links: [Int: String]) -> String {
        let bytes = Array(html.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        // How deep the scan is inside elements whose text is not prose: `a`, `code`, `pre`.
        var literalDepth = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<") {
                let end = bytes[index...].firstIndex(of: UInt8(ascii: ">")).map { $0 + 1 } ?? bytes.count
                literalDepth += literalChange(of: bytes[index..<end])
                out.append(contentsOf: bytes[index..<end])
                index = end
            } else if byte == UInt8(ascii: "["), literalDepth == 0,
                let (numbers, end) = citation(in: bytes, at: index), numbers.allSatisfy({ links[$0] != nil })
            {
                out.append(UInt8(ascii: "["))
                for (position, number) in numbers.enumerated() {
                    if position > 0 { out.append(contentsOf: Array(", ".utf8)) }
                    out.append(contentsOf: Array(Self.link(number, to: links[number]!).utf8))
                }
                out.append(UInt8(ascii: "]"))
                index = end
            } else {
                out.append(byte)
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The link of citation `number` to `url`, which opens beside the conversation, as the Sources list's do.
    public static func link(_ number: Int, to url: String) -> String {
        "<a class=\"citation\" href=\"\(url)\" target=\"_blank\" rel=\"noopener\">\(number)</a>"
    }

    /// +1 for an opening `a`, `code` or `pre` tag, -1 for its closing tag, 0 for any other tag.
    private static func literalChange(of tag: ArraySlice<UInt8>) -> Int {
        let text = String(decoding: tag, as: UTF8.self).lowercased()
        for name in ["a", "code", "pre"] {
            if text.hasPrefix("<\(name)>") || text.hasPrefix("<\(name) ") { return 1 }
            if text.hasPrefix("</\(name)>") { return -1 }
        }
        return 0
    }

    /// The numbers of a citation starting at `start` (`[1]`, `[1, 2]`, `[1,2]`) and the index after its `]`.
    private static func citation(in bytes: [UInt8], at start: Int) -> ([Int], Int)? {
        var numbers: [Int] = []
        var index = start + 1
        while true {
            var value = 0
            let first = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9"),
                index - first < 4
            {
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            guard index > first else { return nil }
            numbers.append(value)
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "]") { return (numbers, index + 1) }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: " ") { index += 1 }
        }
    }
}
