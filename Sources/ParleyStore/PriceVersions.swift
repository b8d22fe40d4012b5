import Foundation
import GRDB
import ParleyCore

/// The `model_prices` table: each model's price versions, the one in force at a moment, and new versions.
enum PriceVersions {
    /// The version of `modelID` in force at `moment`: the latest that took effect by then.
    static func current(_ db: Database, modelID: String, at moment: Date) throws -> PriceVersion? {
        try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT * FROM model_prices WHERE model_id = ? AND effective_from <= ? ORDER BY effective_from DESC, id DESC LIMIT 1
                    """), arguments: [modelID, StoredDate(moment)]
        ).map(PriceVersion.init(row:))
    }

    /// Prices `usage` at the version of `pricing`'s model in force at `moment` (starting its history with the list
    /// price when it has none) and returns that version.
    static func charge(_ usage: inout Usage, _ db: Database, pricing: ReplyPricing, at moment: Date) throws
        -> PriceVersion
    {
        let price =
            try current(db, modelID: pricing.modelID, at: moment)
            ?? insert(db, modelID: pricing.modelID, rates: pricing.listRates, at: moment)
        usage.costMicros = price.rates.cost(of: usage)
        return price
    }

    /// The usage of `outcome` priced at its pricing's version in force at `moment` (as given, unpriced, without a
    /// pricing), and that version's id.
    static func charge(_ outcome: ReplyOutcome, _ db: Database, at moment: Date) throws -> (Usage, priceID: Int64?) {
        var usage = outcome.usage
        guard let pricing = outcome.pricing else { return (usage, nil) }
        let price = try charge(&usage, db, pricing: pricing, at: moment)
        return (usage, price.id)
    }

    /// Adds a version of `modelID` taking effect at `moment`.
    static func insert(_ db: Database, modelID: String, rates: TokenRates, at moment: Date) throws -> PriceVersion {
        try db.cachedStatement(
            sql: """
                INSERT INTO model_prices (model_id, input, cached_input, output, effective_from) VALUES (?, ?, ?, ?, ?)
                """
        ).execute(arguments: [modelID, rates.input, rates.cachedInput, rates.output, StoredDate(moment)])
        return PriceVersion(id: db.lastInsertedRowID, modelID: modelID, rates: rates, effectiveFrom: moment)
    }
}

extension PriceVersion {
    init(row: Row) {
        self.init(
            id: row["id"], modelID: row["model_id"],
            rates: TokenRates(input: row["input"], cachedInput: row["cached_input"], output: row["output"]),
            effectiveFrom: row.date("effective_from"))
    }
}
