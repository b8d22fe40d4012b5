/// A tool's JSON Schema as Gemini's `parameters` take it: the OpenAPI subset Gemini knows, which refuses other keywords
/// (`$schema`, `additionalProperties`, `$defs`…) and a list of types; `properties`, `items` and `anyOf` are cut the same
/// way, and `["string", "null"]` becomes `"string"` with `nullable`.
enum GeminiSchema {
    /// The keywords of Gemini's `Schema`.
    static let keywords: Set<String> = [
        "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties", "required",
        "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering",
        "default", "items", "minimum", "maximum",
    ]

    /// The parameters to send for `schema` (JSON text), or nil for a tool that takes none: Gemini refuses an object
    /// schema without properties, and the declaration then leaves `parameters` out.
    static func parameters(from schema: String) -> String? {
        guard case .object(let object)? = JSONValue(json: schema) else { return nil }
        let cut = self.cut(object)
        guard case .object(let properties)? = cut["properties"], !properties.isEmpty else { return nil }
        return JSONValue.object(cut).text
    }

    /// One schema object cut to Gemini's keywords, its nested schemas too.
    static func cut(_ schema: [String: JSONValue]) -> [String: JSONValue] {
        var kept: [String: JSONValue] = [:]
        for (key, value) in schema where keywords.contains(key) {
            switch (key, value) {
            case ("properties", .object(let properties)):
                kept[key] = .object(properties.mapValues(cutValue))
            case ("items", _):
                kept[key] = cutValue(value)
            case ("anyOf", .array(let schemas)):
                kept[key] = .array(schemas.map(cutValue))
            case ("type", .array(let types)):
                let named = types.filter { $0 != .string("null") }
                kept[key] = named.first ?? .string("string")
                if named.count < types.count { kept["nullable"] = .bool(true) }
            default:
                kept[key] = value
            }
        }
        return kept
    }

    /// A nested schema cut, when it is an object (anything else is left as it is).
    private static func cutValue(_ value: JSONValue) -> JSONValue {
        guard case .object(let schema) = value else { return value }
        return .object(cut(schema))
    }
}
