import Foundation
import ParleyCore
import PostgresNIO

extension PostgresRowSequence {
    /// Every row, each readable by column name.
    func rows() async throws -> [PostgresRandomAccessRow] {
        try await collect().map { $0.makeRandomAccess() }
    }
}

/// Moments as the store keeps them: to the millisecond, as the SQLite store does, so that a date a write returns
/// equals the one a read gives (PostgreSQL keeps microseconds, which a `Date`'s double does not always round-trip).
enum StoredMoment {
    /// The current moment, to the millisecond.
    static var now: Date { rounded(Date()) }

    /// `date` to the nearest millisecond.
    static func rounded(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}

extension PostgresRandomAccessRow {
    /// The moment in `column`, to the millisecond.
    func date(_ column: String) throws -> Date {
        StoredMoment.rounded(try self[column].decode(Date.self))
    }

    /// The moment in `column`, to the millisecond; nil for NULL.
    func optionalDate(_ column: String) throws -> Date? {
        try self[column].decode(Date?.self).map(StoredMoment.rounded)
    }
}

extension User {
    /// A user from a row of `users`.
    init(row: PostgresRandomAccessRow) throws {
        self.init(
            id: try row["id"].decode(Int64.self), email: try row["email"].decode(String.self),
            passwordHash: try row["password_hash"].decode(String.self),
            isAdmin: try row["is_admin"].decode(Bool.self), isDisabled: try row["is_disabled"].decode(Bool.self),
            createdAt: try row.date("created_at"),
            ssoSubject: try row["sso_subject"].decode(String?.self),
            displayName: try row["display_name"].decode(String?.self))
    }
}
