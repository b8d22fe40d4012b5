import GRDB
import ParleyCore

/// The SQL of things their authors share with no one, everyone or groups (assistants, prompts): who may see one, the
/// column of its groups, and replacing its groups. `table` is read as `alias`; `owner` names its author's column, and
/// `groupsTable` links it (by `key`) to the groups it is shared with.
struct SharedVisibility: Sendable {
    let alias: String
    let owner: String
    let groupsTable: String
    let key: String

    /// Whether the row is visible to a user (arguments: is admin, user id, user id).
    var visibleCondition: String {
        """
        (? OR \(alias).\(owner) = ? OR \(alias).visibility = 'everyone'
            OR (\(alias).visibility = 'groups' AND EXISTS (
                SELECT 1 FROM \(groupsTable) g JOIN group_members m ON m.group_id = g.group_id
                WHERE g.\(key) = \(alias).id AND m.user_id = ?)))
        """
    }

    /// The select column `groups`: the row's groups' ids, one a line.
    var groupsColumn: String {
        "(SELECT group_concat(group_id, char(10)) FROM \(groupsTable) WHERE \(key) = \(alias).id) AS groups"
    }

    /// The ids in the `groups` column of `row`, sorted.
    static func groupIDs(_ row: Row) -> [GroupID] {
        ((row["groups"] as String?)?.split(separator: "\n").compactMap { GroupID($0) } ?? []).sorted()
    }

    /// Makes the groups of row `id` exactly those of `groupIDs` that exist, when it is shared with groups (none
    /// otherwise).
    func setGroups(_ groupIDs: [GroupID], visibility: Visibility, of id: Int64, _ db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM \(groupsTable) WHERE \(key) = ?").execute(arguments: [id])
        guard visibility == .groups else { return }
        let insert = try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO \(groupsTable) (\(key), group_id) SELECT ?, id FROM user_groups WHERE id = ?")
        for group in groupIDs { try insert.execute(arguments: [id, group]) }
    }
}
