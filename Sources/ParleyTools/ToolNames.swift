/// The names models see for MCP tools: `serverid__toolname`, at most 64 characters of letters, digits, `_` and `-`
/// (every vendor's rule). A tool name that breaks the rule or is too long has its other characters turned into `_`, is
/// cut to fit, and ends with a hash of the original, so that two tools of one server never share a name; a name that
/// fits is kept as it is. The mapping depends only on the server's id and the tool's name.
enum ToolNames {
    static let maxLength = 64
    static let separator = "__"

    /// The name models see for the tool `tool` of the server `serverID`.
    static func exposed(server serverID: String, tool: String) -> String {
        let prefix = serverID + separator
        let room = maxLength - prefix.count
        if tool.count <= room, !tool.isEmpty, tool.unicodeScalars.allSatisfy(isAllowed) {
            return prefix + tool
        }
        let hash = "_" + fnv1a(tool)
        let safe = String(String.UnicodeScalarView(tool.unicodeScalars.map { isAllowed($0) ? $0 : "_" }))
        return prefix + safe.prefix(max(0, room - hash.count)) + hash
    }

    /// The id of the server whose tool a model's name names, if it has the form `serverid__…`.
    static func serverID(of exposedName: String) -> String? {
        guard let range = exposedName.range(of: separator), range.lowerBound != exposedName.startIndex else {
            return nil
        }
        return String(exposedName[..<range.lowerBound])
    }

    /// Whether a character may appear in a vendor's tool name.
    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "_", "-": true
        default: false
        }
    }

    /// FNV-1a over the UTF-8 bytes, as 8 hexadecimal digits (the low 32 bits): stable across runs, unlike `hashValue`.
    private static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        let hex = String(hash & 0xffff_ffff, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}
