import ParleyCore
import Synchronization

/// The images already fitted, by the original's digest and the limits they were fitted to; past `byteBudget` the
/// least recently used are dropped.
final class FittedImageCache: Sendable {
    struct Key: Hashable {
        var digest: String
        var limits: ImageLimits
    }

    private struct Entry {
        var image: TurnImage
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())
    let byteBudget: Int

    /// Creates an empty cache that holds at most `byteBudget` bytes of images.
    init(byteBudget: Int) {
        self.byteBudget = byteBudget
    }

    /// The image fitted for `key`, if it is kept.
    func image(for key: Key) -> TurnImage? {
        state.withLock { state in
            state.clock += 1
            state.entries[key]?.lastUse = state.clock
            return state.entries[key]?.image
        }
    }

    /// Keeps `image` for `key`, dropping the least recently used images while the cache is over its budget.
    func keep(_ image: TurnImage, for key: Key) {
        guard image.bytes.count <= byteBudget else { return }
        state.withLock { state in
            state.clock += 1
            if let old = state.entries.updateValue(Entry(image: image, lastUse: state.clock), forKey: key) {
                state.bytes -= old.image.bytes.count
            }
            state.bytes += image.bytes.count
            while state.bytes > byteBudget,
                let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })
            {
                state.entries[oldest.key] = nil
                state.bytes -= oldest.value.image.bytes.count
            }
        }
    }

    /// How many images are kept.
    var count: Int { state.withLock { $0.entries.count } }
}
