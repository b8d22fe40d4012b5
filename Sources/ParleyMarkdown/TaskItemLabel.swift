import Foundation

/// Names a task list checkbox by `aria-label` with its item's text, since a `<label>` cannot hold an item's blocks.
struct TaskItemLabel {
    /// The start of every checkbox cmark-gfm's task list extension renders (`checked=""` and `disabled=""` follow);
    /// safe mode escapes each `<` of the text, so each occurrence is one item's, in document order.
    static let checkbox = #"<input type="checkbox" "#
    /// The longest name kept, in characters: a longer text is cut, ending with "…".
    static let maxCharacters = 100
    /// The name of an item without text (only an image without a description, say).
    static let textless = "Task"

    private var collected = ""
    private var characters = 0
    private var spacePending = false

    /// Whether more text would be cut off anyway.
    var isFull: Bool { characters > Self.maxCharacters }

    /// Adds text; whitespace runs become one space, and leading and trailing whitespace is dropped.
    mutating func append(_ text: String) {
        for character in text {
            if isFull { return }
            if character.isWhitespace {
                spacePending = !collected.isEmpty
            } else {
                if spacePending { collected.append(" ") }
                spacePending = false
                collected.append(character)
                characters += 1
            }
        }
    }

    /// The name: the text, cut to `maxCharacters`, or `textless`.
    var text: String {
        if collected.isEmpty { return Self.textless }
        return collected.count > Self.maxCharacters ? String(collected.prefix(Self.maxCharacters - 1)) + "…" : collected
    }

    /// `html` (cmark's output) with `aria-label="…"` added to each checkbox in turn, from `labels` (escaped).
    static func naming(checkboxesIn html: UnsafePointer<CChar>, labels: [String]) -> String {
        var named = ""
        var rest = html
        for label in labels {
            guard let found = strstr(rest, checkbox) else { break }
            let end = UnsafePointer(found) + checkbox.utf8.count
            named += String(decoding: UnsafeRawBufferPointer(start: rest, count: rest.distance(to: end)), as: UTF8.self)
            named += "aria-label=\"" + escaped(label) + "\" "
            rest = end
        }
        return named + String(cString: rest)
    }

    /// Text made safe for a double-quoted attribute, escaped as cmark escapes text.
    private static func escaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
