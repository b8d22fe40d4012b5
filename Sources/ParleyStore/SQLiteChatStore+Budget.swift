import Foundation
import ParleyCore

extension SQLiteChatStore {
    public func budgetStatus(userID: UserID) async throws(StoreError) -> BudgetStatus {
        try await perform {
            try pool.lookup { db in try BudgetLedger.status(db, userID: userID, today: UsageDay(Date())) }
        }
    }
}
