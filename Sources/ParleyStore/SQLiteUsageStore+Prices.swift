import Foundation
import GRDB
import ParleyCore

extension SQLiteUsageStore {
    public func priceVersions() async throws(StoreError) -> [PriceVersion] {
        try await perform {
            try pool.lookup { db in
                try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM model_prices ORDER BY effective_from, id")).map(
                    PriceVersion.init(row:))
            }
        }
    }

    public func setPrice(modelID: String, rates: TokenRates) async throws(StoreError) -> PriceVersion {
        try await perform {
            try await writer.write { db in try PriceVersions.insert(db, modelID: modelID, rates: rates, at: Date()) }
        }
    }
}
