import GRDB
import ParleyCore

extension SQLiteChatStore {
    public func modelAccess(userID: UserID) async throws(StoreError) -> ModelAccess {
        try await perform {
            try pool.lookup { db in
                var access = ModelAccess.unrestricted
                let rows = try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT a.model, MAX(m.user_id IS NOT NULL) AS granted FROM model_access a
                            LEFT JOIN group_members m ON m.group_id = a.group_id AND m.user_id = ?
                            GROUP BY a.model
                            """), arguments: [userID])
                for row in rows {
                    let model: String = row["model"]
                    access.restricted.insert(model)
                    if row["granted"] as Bool { access.granted.insert(model) }
                }
                return access
            }
        }
    }
}
