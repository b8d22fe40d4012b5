import ParleyJSON

/// A tool's schema or a call's arguments as vendors take them: JSON object text, checked before it is relayed as it is.
enum ToolJSON {
    /// The schema sent for a tool whose own is not a JSON object: a tool without parameters.
    static let emptySchema = #"{"type":"object","properties":{}}"#

    /// `text` when it is one JSON object, else `fallback`.
    static func object(_ text: String, orElse fallback: String = "{}") -> String {
        let isObject =
            (try? JSONCursor.readDocument(text) { cursor in
                try cursor.readObject { cursor, _ in try cursor.skipValue() }
            }) != nil
        return isObject ? text : fallback
    }
}
