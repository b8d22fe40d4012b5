/// Ways of cutting a document into streamed deltas.
enum Chunkings {
    /// One Character per delta.
    static func characters(_ text: String) -> [String] {
        text.map { String($0) }
    }

    /// One Unicode scalar per delta, splitting grapheme clusters (emoji modifiers, combining marks, CR LF).
    static func scalars(_ text: String) -> [String] {
        text.unicodeScalars.map { String($0) }
    }

    /// Runs of `characters` Characters.
    static func fixedSize(_ text: String, characters: Int) -> [String] {
        var deltas: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            deltas.append(String(rest.prefix(characters)))
            rest = rest.dropFirst(characters)
        }
        return deltas
    }

    /// Random runs of 1 to 40 Unicode scalars.
    static func randomSizes(_ text: String, using random: inout SplitMix64) -> [String] {
        var scalars = Substring(text).unicodeScalars[...]
        var deltas: [String] = []
        while !scalars.isEmpty {
            let size = Int.random(in: 1...40, using: &random)
            deltas.append(String(String.UnicodeScalarView(scalars.prefix(size))))
            scalars = scalars.dropFirst(size)
        }
        return deltas
    }

    /// Whole lines, each with its line ending.
    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { index, line in
            index == 0 ? String(line) : "\n" + line
        }
    }
}
