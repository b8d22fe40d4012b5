import Foundation

/// Lists stored as JSON text in a column: NULL for none, and none for anything unreadable (only Parley writes them).
public enum StoredJSONList {
    /// The items stored as `json`.
    public static func decoded<Item: Decodable>(_ json: String?) -> [Item] {
        json.flatMap { try? JSONDecoder().decode([Item].self, from: Data($0.utf8)) } ?? []
    }

    /// The stored form of `items`: NULL for none.
    public static func json<Item: Encodable>(_ items: [Item]) -> String? {
        guard !items.isEmpty, let data = try? JSONEncoder().encode(items) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
