/// The byte classes the lexers ask about; every byte of a non-ASCII character (0x80 and up) counts as a word byte, so
/// a token never ends inside a character.
extension UInt8 {
    /// `0`–`9`.
    var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
    /// `0`–`9`, `a`–`f`, `A`–`F`.
    var isHexDigit: Bool { isDigit || (self | 0x20 >= UInt8(ascii: "a") && self | 0x20 <= UInt8(ascii: "f")) }
    /// `A`–`Z`.
    var isUppercase: Bool { self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z") }
    /// `a`–`z`.
    var isLowercase: Bool { self >= UInt8(ascii: "a") && self <= UInt8(ascii: "z") }
    /// An ASCII letter.
    var isLetter: Bool { isUppercase || isLowercase }
    /// An ASCII letter or digit.
    var isAlphanumeric: Bool { isLetter || isDigit }
    /// A byte that can start a word: a letter, `_` or part of a non-ASCII character.
    var isWordStart: Bool { isLetter || self == UInt8(ascii: "_") || self >= 0x80 }
    /// A byte that can continue a word: a word start or a digit.
    var isWordByte: Bool { isWordStart || isDigit }
    /// A space or a tab.
    var isBlank: Bool { self == UInt8(ascii: " ") || self == UInt8(ascii: "\t") }
    /// A space, tab, carriage return or line feed.
    var isWhitespace: Bool { isBlank || self == UInt8(ascii: "\n") || self == UInt8(ascii: "\r") }
    /// The byte with an ASCII uppercase letter lowered.
    var lowercased: UInt8 { isUppercase ? self | 0x20 : self }

    /// The bracket that closes this one: `)` for `(`, `]` for `[`, `}` for `{`, `>` for `<`; nil for other bytes.
    var closingBracket: UInt8? {
        switch self {
        case UInt8(ascii: "("): UInt8(ascii: ")")
        case UInt8(ascii: "["): UInt8(ascii: "]")
        case UInt8(ascii: "{"): UInt8(ascii: "}")
        case UInt8(ascii: "<"): UInt8(ascii: ">")
        default: nil
        }
    }
}
