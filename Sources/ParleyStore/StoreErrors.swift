import GRDB
import ParleyCore

/// Runs a database access, turning whatever it throws into the store's typed error.
func perform<T>(_ access: () async throws -> T) async throws(StoreError) -> T {
    do {
        return try await access()
    } catch let error as StoreError {
        throw error
    } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
        throw StoreError.duplicate
    } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
        throw StoreError.diskFull
    } catch {
        throw StoreError.database("\(error)")
    }
}
