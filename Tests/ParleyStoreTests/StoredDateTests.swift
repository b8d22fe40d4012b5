import Foundation
import GRDB
import Testing

@testable import ParleyStore

/// The store's own date conversion writes exactly GRDB's text and reads it back to the same moment.
@Suite struct StoredDateTests {
    /// Dates spread over years 1900–9999, with fractions of milliseconds, both sides of 1970, and around leap days.
    static func sampleDates() -> [Date] {
        var generator = SystemRandomNumberGenerator()
        let random = (0..<20_000).map { _ in
            Date(timeIntervalSince1970: Double.random(in: -2_208_988_800...253_402_300_799, using: &generator))
        }
        let edges = [
            "1900-01-01 00:00:00.000", "1969-12-31 23:59:59.999", "1970-01-01 00:00:00.000", "2000-02-29 12:00:00.500",
            "2024-02-29 23:59:59.999", "2100-03-01 00:00:00.001", "9999-12-31 23:59:59.999",
        ]
        .compactMap { Date.fromDatabaseValue($0.databaseValue) }
        // Exact half milliseconds on both sides of 1970, where rounding halves up and away from zero differ.
        let halves = (0..<2_000).map { _ in
            Date(
                timeIntervalSince1970: Double(
                    Int64.random(in: -2_208_988_800_000...253_402_300_799_000, using: &generator)) / 1000 + 0.0005)
        }
        return random + halves + edges + [
            Date(), Date(timeIntervalSince1970: -0.0005), Date(timeIntervalSince1970: 1_700_000_000.9999),
            Date(timeIntervalSince1970: -582_688_917.4335),
        ]
    }

    @Test func writesTheSameTextAsGRDB() throws {
        for date in Self.sampleDates() {
            let grdb = try #require(String.fromDatabaseValue(date.databaseValue))
            #expect(StoredDate(date).databaseValue == grdb.databaseValue, "\(date.timeIntervalSince1970)")
        }
    }

    @Test func readsTheSameMomentAsGRDB() throws {
        for date in Self.sampleDates() {
            let stored = date.databaseValue
            let grdb = try #require(Date.fromDatabaseValue(stored))
            let ours = try #require(StoredDate.fromDatabaseValue(stored)?.date)
            #expect(abs(ours.timeIntervalSince(grdb)) < 0.000_1, "\(stored)")
            #expect(StoredDate(ours).databaseValue == stored)
        }
    }

    @Test func nowIsKeptToTheMillisecondSoItReadsBackEqual() throws {
        for _ in 0..<1_000 {
            let now = StoredDate.now
            #expect(StoredDate.fromDatabaseValue(now.databaseValue)?.date == now.date)
        }
    }

    @Test func otherTextsAndNumbersAreReadAsGRDBReadsThem() throws {
        let texts = [
            "2024-05-06", "2024-05-06 07:08", "2024-05-06T07:08:09.123", "2024-05-06 07:08:09",
            "10000-01-01 00:00:00.000",
            "1899-12-31 23:59:59.999", "1582-10-04 12:00:00.000",
        ]
        for value in texts.map(\.databaseValue) + [Double(1_700_000_000.25).databaseValue] {
            #expect(StoredDate.fromDatabaseValue(value)?.date == Date.fromDatabaseValue(value), "\(value)")
        }
        for text in [
            "2024-13-01 00:00:00.000", "2023-02-29 00:00:00.000", "2024-01-01 24:00:00.000", "2024-01-01 00:00:00.0x0",
            "nonsense",
        ] {
            #expect(StoredDate.date(from: text) == nil, "\(text)")
        }
        #expect(StoredDate.fromDatabaseValue(.null) == nil)
    }

    @Test func datesOutsideTheWrittenYearsAreLeftToGRDB() {
        for date in [
            Date(timeIntervalSince1970: -2_208_988_801), Date(timeIntervalSince1970: 253_402_300_800), Date.distantPast,
        ] {
            #expect(StoredDate.text(of: date) == nil)
            #expect(StoredDate(date).databaseValue == date.databaseValue)
        }
    }
}
