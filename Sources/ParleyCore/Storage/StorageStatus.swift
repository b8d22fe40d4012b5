/// A user's stored bytes (images and message text) against their storage quota.
public struct StorageStatus: Sendable, Equatable {
    public var storedBytes: Int64
    public var quotaBytes: Int64

    /// The `settings` key of the default quota in bytes, written at start-up from `PARLEY_USER_STORAGE_MB`.
    public static let defaultQuotaSetting = "default_storage_quota_bytes"
    /// The quota when none is set anywhere: 1 GiB.
    public static let fallbackQuotaBytes: Int64 = 1 << 30

    /// Creates a status.
    public init(storedBytes: Int64, quotaBytes: Int64) {
        self.storedBytes = storedBytes
        self.quotaBytes = quotaBytes
    }

    /// Whether the user stores more than their quota allows.
    public var isOver: Bool { storedBytes > quotaBytes }

    /// "12.3 MB of 1,024 MB", for messages and the admin's pages.
    public var summary: String { "\(Self.megabytes(storedBytes)) of \(Self.megabytes(quotaBytes))" }

    /// Bytes as megabytes (of 1,048,576 bytes) with one decimal below 10 MB.
    public static func megabytes(_ bytes: Int64) -> String {
        let value = Double(bytes) / 1_048_576
        return value < 10 ? "\((value * 10).rounded() / 10) MB" : "\(Int(value.rounded())) MB"
    }
}
