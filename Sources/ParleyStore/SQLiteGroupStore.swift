import GRDB
import ParleyCore

/// Groups, their members, the models they open and their budgets, in SQLite.
public struct SQLiteGroupStore: GroupStore {
    let pool: DatabasePool
    let writer: GroupCommitWriter

    /// Creates the store over an open database.
    public init(database: ParleyDatabase) {
        pool = database.pool
        writer = database.writer
    }

    /// The columns of a group with its models and member count.
    private static let groupColumns = """
        SELECT g.id, g.name, g.from_sso, g.monthly_budget_micros,
               (SELECT group_concat(model, char(10)) FROM (SELECT model FROM model_access WHERE group_id = g.id
                                                          ORDER BY model)) AS models,
               (SELECT COUNT(*) FROM group_members WHERE group_id = g.id) AS members
        FROM user_groups g
        """

    public func groups() async throws(StoreError) -> [UserGroup] {
        try await perform {
            try pool.lookup { db in
                try Row.fetchAll(db.cachedStatement(sql: Self.groupColumns + " ORDER BY g.name"))
                    .map(UserGroup.init(row:))
            }
        }
    }

    public func group(id: GroupID) async throws(StoreError) -> UserGroup? {
        try await perform {
            try pool.lookup { db in
                try Row.fetchOne(db.cachedStatement(sql: Self.groupColumns + " WHERE g.id = ?"), arguments: [id])
                    .map(UserGroup.init(row:))
            }
        }
    }

    public func members(groupID: GroupID) async throws(StoreError) -> [User] {
        try await perform {
            try pool.lookup { db in
                try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT u.* FROM users u JOIN group_members m ON m.user_id = u.id
                            WHERE m.group_id = ? ORDER BY u.email
                            """), arguments: [groupID]
                ).map(User.init(row:))
            }
        }
    }

    public func createGroup(name: String) async throws(StoreError) -> UserGroup {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "INSERT INTO user_groups (name, created_at) VALUES (?, ?)")
                    .execute(arguments: [name, StoredDate.now])
                return UserGroup(
                    id: db.lastInsertedRowID, name: name, fromSSO: false, monthlyBudgetMicros: nil, models: [],
                    memberCount: 0)
            }
        }
    }

    public func deleteGroup(id: GroupID) async throws(StoreError) {
        try await changing("DELETE FROM user_groups WHERE id = ?", [id])
    }

    public func addMember(userID: UserID, groupID: GroupID) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                let exists =
                    try Bool.fetchOne(
                        db.cachedStatement(
                            sql: """
                                SELECT EXISTS (SELECT 1 FROM users WHERE id = ?)
                                   AND EXISTS (SELECT 1 FROM user_groups WHERE id = ?)
                                """), arguments: [userID, groupID]) ?? false
                guard exists else { throw StoreError.notFound }
                try db.cachedStatement(sql: "INSERT OR IGNORE INTO group_members (group_id, user_id) VALUES (?, ?)")
                    .execute(arguments: [groupID, userID])
            }
        }
    }

    public func removeMember(userID: UserID, groupID: GroupID) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: "DELETE FROM group_members WHERE group_id = ? AND user_id = ?")
                    .execute(arguments: [groupID, userID])
            }
        }
    }

    public func setModels(_ models: [String], groupID: GroupID) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                guard
                    try Bool.fetchOne(
                        db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM user_groups WHERE id = ?)"),
                        arguments: [groupID]) == true
                else { throw StoreError.notFound }
                try db.cachedStatement(sql: "DELETE FROM model_access WHERE group_id = ?").execute(arguments: [groupID])
                for model in Set(models) {
                    try db.cachedStatement(sql: "INSERT INTO model_access (model, group_id) VALUES (?, ?)")
                        .execute(arguments: [model, groupID])
                }
            }
        }
    }

    public func setMonthlyBudget(_ micros: Int64?, groupID: GroupID) async throws(StoreError) {
        try await changing("UPDATE user_groups SET monthly_budget_micros = ? WHERE id = ?", [micros, groupID])
    }

    public func spend(since month: UsageDay) async throws(StoreError) -> [GroupID: Int64] {
        try await perform {
            try await pool.scan { db in
                let rows = try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT m.group_id, SUM(d.cost_micros) FROM group_members m
                            JOIN usage_daily d ON d.user_id = m.user_id AND d.day >= ?
                            GROUP BY m.group_id
                            """), arguments: [month.description])
                return Dictionary(uniqueKeysWithValues: rows.map { (row: Row) -> (GroupID, Int64) in (row[0], row[1]) })
            }
        }
    }

    /// Runs one statement that must change a row; `.notFound` when none.
    private func changing(_ sql: String, _ arguments: StatementArguments) async throws(StoreError) {
        try await perform {
            try await writer.write { db in
                try db.cachedStatement(sql: sql).execute(arguments: arguments)
                guard db.changesCount == 1 else { throw StoreError.notFound }
            }
        }
    }
}

extension UserGroup {
    init(row: Row) {
        let models: String? = row["models"]
        self.init(
            id: row["id"], name: row["name"], fromSSO: row["from_sso"],
            monthlyBudgetMicros: row["monthly_budget_micros"],
            models: models.map { $0.split(separator: "\n").map(String.init) } ?? [], memberCount: row["members"])
    }
}
