import Logging
import ParleyCore
import PostgresNIO

/// Groups, their members, the models they open and their budgets, in PostgreSQL.
public struct PostgresGroupStore: GroupStore {
    let client: PostgresClient
    let logger: Logger

    /// Creates the store over a database.
    public init(database: PostgresStorage) {
        client = database.client
        logger = database.logger
    }

    /// The columns of a group with its models (in byte order, as SQLite sorts them) and member count.
    private static let groupColumns = """
        SELECT g.id, g.name, g.from_sso, g.monthly_budget_micros,
               (SELECT string_agg(model, E'\\n' ORDER BY model COLLATE "C") FROM model_access WHERE group_id = g.id)
                   AS models,
               (SELECT COUNT(*) FROM group_members WHERE group_id = g.id) AS members
        FROM user_groups g
        """

    public func groups() async throws(StoreError) -> [UserGroup] {
        try await perform {
            try await client.query("\(unescaped: Self.groupColumns) ORDER BY lower(g.name), g.id", logger: logger)
                .rows().map(UserGroup.init(row:))
        }
    }

    public func group(id: GroupID) async throws(StoreError) -> UserGroup? {
        try await perform {
            try await client.query("\(unescaped: Self.groupColumns) WHERE g.id = \(id)", logger: logger).rows()
                .first.map(UserGroup.init(row:))
        }
    }

    public func members(groupID: GroupID) async throws(StoreError) -> [User] {
        try await perform {
            try await client.query(
                """
                SELECT u.* FROM users u JOIN group_members m ON m.user_id = u.id
                WHERE m.group_id = \(groupID) ORDER BY lower(u.email), u.id
                """, logger: logger
            ).rows().map(User.init(row:))
        }
    }

    public func createGroup(name: String) async throws(StoreError) -> UserGroup {
        let now = StoredMoment.now
        return try await perform {
            let id =
                try await client.query(
                    "INSERT INTO user_groups (name, created_at) VALUES (\(name), \(now)) RETURNING id", logger: logger
                ).rows().first?["id"].decode(Int64.self) ?? 0
            return UserGroup(
                id: id, name: name, fromSSO: false, monthlyBudgetMicros: nil, models: [], memberCount: 0)
        }
    }

    public func deleteGroup(id: GroupID) async throws(StoreError) {
        try await changing("DELETE FROM user_groups WHERE id = \(id) RETURNING 1")
    }

    public func addMember(userID: UserID, groupID: GroupID) async throws(StoreError) {
        try await perform {
            let added = try await client.query(
                """
                INSERT INTO group_members (group_id, user_id)
                SELECT g.id, u.id FROM user_groups g, users u WHERE g.id = \(groupID) AND u.id = \(userID)
                ON CONFLICT DO NOTHING RETURNING 1
                """, logger: logger
            ).rows()
            guard added.isEmpty else { return }
            // Nothing added: already a member, or the user or group is missing.
            let exists =
                try await client.query(
                    """
                    SELECT EXISTS (SELECT 1 FROM users WHERE id = \(userID))
                       AND EXISTS (SELECT 1 FROM user_groups WHERE id = \(groupID))
                    """, logger: logger
                ).rows().first?[0].decode(Bool.self) ?? false
            guard exists else { throw StoreError.notFound }
        }
    }

    public func removeMember(userID: UserID, groupID: GroupID) async throws(StoreError) {
        try await perform {
            try await client.query(
                "DELETE FROM group_members WHERE group_id = \(groupID) AND user_id = \(userID)", logger: logger)
        }
    }

    public func setModels(_ models: [String], groupID: GroupID) async throws(StoreError) {
        try await perform {
            try await client.withTransaction(logger: logger) { connection in
                // The group's row is locked, so that a deletion of it waits for (or fails) this change.
                let found = try await connection.query(
                    "SELECT 1 FROM user_groups WHERE id = \(groupID) FOR UPDATE", logger: logger
                ).rows()
                guard !found.isEmpty else { throw StoreError.notFound }
                try await connection.query("DELETE FROM model_access WHERE group_id = \(groupID)", logger: logger)
                try await connection.query(
                    """
                    INSERT INTO model_access (model, group_id)
                    SELECT DISTINCT model, \(groupID)::bigint FROM unnest(\(models)::text[]) AS model
                    """, logger: logger)
            }
        }
    }

    public func setMonthlyBudget(_ micros: Int64?, groupID: GroupID) async throws(StoreError) {
        try await changing("UPDATE user_groups SET monthly_budget_micros = \(micros) WHERE id = \(groupID) RETURNING 1")
    }

    public func spend(since month: UsageDay) async throws(StoreError) -> [GroupID: Int64] {
        try await perform {
            let rows = try await client.query(
                """
                SELECT m.group_id, SUM(d.cost_micros)::bigint FROM group_members m
                JOIN usage_rows d ON d.user_id = m.user_id AND d.day >= \(month.description)
                GROUP BY m.group_id
                """, logger: logger
            ).collect()
            return Dictionary(uniqueKeysWithValues: try rows.map { try $0.decode((Int64, Int64).self) })
        }
    }

    /// Runs one statement that returns a row when it changed one; `.notFound` when none.
    private func changing(_ statement: PostgresQuery) async throws(StoreError) {
        try await perform {
            guard try await client.query(statement, logger: logger).rows().count == 1 else {
                throw StoreError.notFound
            }
        }
    }
}

extension UserGroup {
    /// A group from a row of `PostgresGroupStore`'s group columns.
    init(row: PostgresRandomAccessRow) throws {
        let models = try row["models"].decode(String?.self)
        self.init(
            id: try row["id"].decode(Int64.self), name: try row["name"].decode(String.self),
            fromSSO: try row["from_sso"].decode(Bool.self),
            monthlyBudgetMicros: try row["monthly_budget_micros"].decode(Int64?.self),
            models: models.map { $0.split(separator: "\n").map(String.init) } ?? [],
            memberCount: Int(try row["members"].decode(Int64.self)))
    }
}
