/// A word of up to 16 bytes packed into two integers: a cheap dictionary key for looking words up without making
/// strings.
struct WordKey: Hashable, Sendable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    /// The key of `bytes`, ASCII letters lowered if `folding`; nil if longer than 16 bytes (no listed word is).
    init?(_ bytes: ArraySlice<UInt8>, folding: Bool) {
        guard bytes.count <= 16 else { return nil }
        for (offset, byte) in bytes.enumerated() {
            let value = UInt64(folding ? byte.lowercased : byte) << (8 * UInt64(offset % 8))
            if offset < 8 { low |= value } else { high |= value }
        }
    }

    /// The key of a listed word.
    init?(_ word: Substring, folding: Bool) {
        self.init(ArraySlice(word.utf8), folding: folding)
    }

    /// The keys of the space-separated `words`, ASCII letters lowered if `folding`.
    static func keys(of words: String, folding: Bool) -> Set<WordKey> {
        Set(words.split(separator: " ").compactMap { WordKey($0, folding: folding) })
    }
}
