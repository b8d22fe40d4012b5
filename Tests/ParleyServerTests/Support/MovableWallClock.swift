import Foundation
import Synchronization

/// A wall clock a test moves: the real time plus an offset, or, frozen, a fixed moment plus the offset (for tests
/// whose steps must not let real time count).
final class MovableWallClock: Sendable {
    private let frozenAt: Date?
    private let offset = Mutex<TimeInterval>(0)

    /// A clock that runs with real time, or stands at `frozenAt` until moved.
    init(frozenAt: Date? = nil) {
        self.frozenAt = frozenAt
    }

    /// The moved time.
    var now: Date { (frozenAt ?? Date()).addingTimeInterval(offset.withLock { $0 }) }

    /// Moves the clock by `seconds` (back when negative).
    func move(by seconds: TimeInterval) {
        offset.withLock { $0 += seconds }
    }
}
