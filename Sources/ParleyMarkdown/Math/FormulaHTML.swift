import Foundation

/// Formulas travel through cmark as code spans whose text starts with a marker (U+10FFFC inline, U+10FFFD displayed),
/// so cmark escapes, places and frees them like any code span; its HTML then gets each such span back as the
/// formula's `<code class="math math-inline">` or `<code class="math math-display">` holding the TeX source.
enum FormulaHTML {
    /// The marker of an inline formula.
    static let inlineMarker: Character = "\u{10FFFC}"
    /// The marker of a displayed formula.
    static let displayMarker: Character = "\u{10FFFD}"
    /// The bytes the markers share; the last byte is `0xBC` (inline) or `0xBD` (displayed).
    private static let markerPrefix: [UInt8] = [0xF4, 0x8F, 0xBF]
    /// How cmark opens a code span.
    static let codeOpening = "<code>"
    private static let codeOpeningBytes = Array(codeOpening.utf8)

    /// `html` with each marked code span made a formula, and any other marker (an image's text holds its formulas'
    /// sources, as plain text) removed.
    static func rewriting(_ html: String) -> String {
        let bytes = Array(html.utf8)
        var rewritten: [UInt8] = []
        rewritten.reserveCapacity(bytes.count + 64)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == markerPrefix[0], index + 3 < bytes.count, bytes[index + 1] == markerPrefix[1],
                bytes[index + 2] == markerPrefix[2], [0xBC, 0xBD].contains(bytes[index + 3])
            else {
                rewritten.append(bytes[index])
                index += 1
                continue
            }
            if rewritten.count >= codeOpeningBytes.count,
                rewritten.suffix(codeOpeningBytes.count).elementsEqual(codeOpeningBytes)
            {
                rewritten.removeLast(codeOpeningBytes.count)
                rewritten += Array(
                    (bytes[index + 3] == 0xBC
                        ? #"<code class="math math-inline">"# : #"<code class="math math-display">"#).utf8)
            }
            index += 4
        }
        return String(decoding: rewritten, as: UTF8.self)
    }

    /// Whether `html` may hold a marker (the bytes all markers start with).
    static func mayHoldFormula(_ html: UnsafePointer<CChar>) -> Bool {
        strstr(html, "\u{10FFFC}") != nil || strstr(html, "\u{10FFFD}") != nil
    }
}
