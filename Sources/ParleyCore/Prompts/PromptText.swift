import Foundation

/// A prompt's `{{variables}}`: a name of 1 to 40 letters, digits, underscores or spaces between double braces, spaces
/// around it ignored (`{{ topic }}` is `topic`). Any other text, braces included, is the prompt's own.
public enum PromptText {
    /// The longest name between the braces, spaces included.
    public static let maxNameLength = 40

    /// The names of the variables in `body`, each once, in the order they first appear.
    public static func variables(in body: String) -> [String] {
        var seen = Set<String>()
        return occurrences(in: body).compactMap { seen.insert($0.name).inserted ? $0.name : nil }
    }

    /// `body` with each variable replaced by its value from `values` (keys are names; spaces around them ignored), in
    /// one pass, so a value holding braces stays as written. Refuses values for variables `body` lacks, variables
    /// without a value (or a blank one), and a result longer than `limit` characters.
    public static func fill(_ body: String, with values: [String: String], limit: Int) throws(PromptError) -> String {
        let names = variables(in: body)
        var given = [String: String]()
        for (key, value) in values { given[key.trimmingCharacters(in: .whitespaces)] = value }
        let unknown = given.keys.filter { !names.contains($0) }.sorted()
        guard unknown.isEmpty else { throw .unknownVariables(unknown) }
        let missing = names.filter { given[$0]?.allSatisfy(\.isWhitespace) ?? true }
        guard missing.isEmpty else { throw .missingVariables(missing) }
        var filled = ""
        var rest = body.startIndex
        for occurrence in occurrences(in: body) {
            filled += body[rest..<occurrence.range.lowerBound]
            filled += given[occurrence.name] ?? ""
            rest = occurrence.range.upperBound
            // A character takes at most four bytes: past that the text is too long whatever it holds.
            guard filled.utf8.count <= 4 * limit else { throw .filledTooLong }
        }
        filled += body[rest...]
        guard filled.count <= limit else { throw .filledTooLong }
        return filled
    }

    /// Each variable in `body`, where it is written and its name, scanning as a regular expression would: a `{{` that
    /// does not begin a variable is text, and the scan goes on from its second brace.
    private static func occurrences(in body: String) -> [(range: Range<String.Index>, name: String)] {
        let bytes = body.utf8
        let (open, close) = (UInt8(ascii: "{"), UInt8(ascii: "}"))
        var found: [(range: Range<String.Index>, name: String)] = []
        var start = bytes.startIndex
        while let brace = bytes[start...].firstIndex(of: open) {
            let nameStart = bytes.index(after: brace)
            start = nameStart
            guard nameStart < bytes.endIndex, bytes[nameStart] == open else { continue }
            let name = bytes[bytes.index(after: nameStart)...].prefix(maxNameLength + 1).prefix(while: isNameByte)
            let after = bytes[name.endIndex...].prefix(2)
            guard (1...maxNameLength).contains(name.count), after.elementsEqual([close, close]) else { continue }
            let trimmed = String(body[name.startIndex..<name.endIndex]).trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            found.append((brace..<after.endIndex, trimmed))
            start = after.endIndex
        }
        return found
    }

    /// Whether a byte may be part of a name: an ASCII letter or digit, an underscore or a space.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: " "):
            true
        default: false
        }
    }
}
