/// The kinds of token the highlighter marks; each is written as `<span class="hl-…">`, so the names are stable.
enum TokenClass: UInt8, CaseIterable, Sendable {
    case keyword, string, number, comment, type, function, literal, meta, variable
    case tag, attribute, property, addition, deletion, section

    /// The CSS class of the span.
    var cssClass: String {
        switch self {
        case .keyword: "hl-keyword"
        case .string: "hl-string"
        case .number: "hl-number"
        case .comment: "hl-comment"
        case .type: "hl-type"
        case .function: "hl-function"
        case .literal: "hl-literal"
        case .meta: "hl-meta"
        case .variable: "hl-variable"
        case .tag: "hl-tag"
        case .attribute: "hl-attr"
        case .property: "hl-property"
        case .addition: "hl-addition"
        case .deletion: "hl-deletion"
        case .section: "hl-section"
        }
    }
}
