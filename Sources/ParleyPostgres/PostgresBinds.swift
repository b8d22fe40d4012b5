import Logging
import PostgresNIO

/// The values of a statement written in parts, each bound as the next `$n` of its text: for SQL a part of which
/// another type writes (`PostgresSharing`), which one string interpolation cannot hold.
final class PostgresBinds {
    private(set) var bindings = PostgresBindings()

    /// Binds `value` and returns its placeholder.
    func callAsFunction<Value: PostgresThrowingDynamicTypeEncodable>(_ value: Value) throws -> String {
        try bindings.append(value)
        return "$\(bindings.count)"
    }

    /// The statement of `sql`, whose placeholders these binds gave.
    func query(_ sql: String) -> PostgresQuery {
        PostgresQuery(unsafeSQL: sql, binds: bindings)
    }
}

/// The SQL of things their authors share with no one, everyone or groups (assistants, prompts), as SQLite's
/// `SharedVisibility`: who may see one, the column of its groups, and replacing its groups. The table is read as
/// `alias`; `owner` names its author's column, and `groupsTable` links it (by `key`) to the groups it is shared with.
struct PostgresSharing: Sendable {
    let alias: String
    let owner: String
    let groupsTable: String
    let key: String

    /// Whether the row is visible to the user: theirs, shared with everyone or a group of theirs, or any for an admin.
    func visible(to userID: Int64, isAdmin: Bool, _ binds: PostgresBinds) throws -> String {
        let user = try binds(userID)
        return """
            (\(try binds(isAdmin)) OR \(alias).\(owner) = \(user) OR \(alias).visibility = 'everyone'
                OR (\(alias).visibility = 'groups' AND EXISTS (
                    SELECT 1 FROM \(groupsTable) g JOIN group_members m ON m.group_id = g.group_id
                    WHERE g.\(key) = \(alias).id AND m.user_id = \(user))))
            """
    }

    /// The select column `groups`: the row's groups' ids, in order.
    var groupsColumn: String {
        "ARRAY(SELECT group_id FROM \(groupsTable) WHERE \(key) = \(alias).id ORDER BY group_id) AS groups"
    }

    /// Makes the groups of row `id` exactly those of `groupIDs` that exist, when it is shared with groups (none
    /// otherwise).
    func setGroups(_ groupIDs: [Int64], shared: Bool, of id: Int64, on connection: PostgresConnection, logger: Logger)
        async throws
    {
        try await connection.query(
            "DELETE FROM \(unescaped: groupsTable) WHERE \(unescaped: key) = \(id)", logger: logger)
        guard shared else { return }
        try await connection.query(
            """
            INSERT INTO \(unescaped: groupsTable) (\(unescaped: key), group_id)
            SELECT \(id)::bigint, id FROM user_groups WHERE id = ANY(\(groupIDs)) ON CONFLICT DO NOTHING
            """, logger: logger)
    }
}
