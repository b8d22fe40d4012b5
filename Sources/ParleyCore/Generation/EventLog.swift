/// The encoded events of one reply, back to back in one buffer, with where each ends: a running reply's log costs
/// its bytes, not a string (and its spare capacity) per event, which was a third of the heap of 2,000 open replies.
struct EventLog {
    private var bytes: [UInt8] = []
    private var ends: [Int] = []

    /// How many events it holds.
    var count: Int { ends.count }

    /// Adds an event's SSE frame. The buffer grows by a quarter at a time, not twice over as an array does: a log is
    /// kept for as long as its reply runs, and the spare half of a doubled buffer was ~1 KB of every open stream.
    mutating func append(_ frame: String) {
        let needed = bytes.count + frame.utf8.count
        if needed > bytes.capacity { bytes.reserveCapacity(max(needed, bytes.count + bytes.count / 4)) }
        bytes.append(contentsOf: frame.utf8)
        ends.append(bytes.count)
    }

    /// The frames from the `index`th event on, joined, as a copy (so that later appends never copy the log).
    func frames(from index: Int) -> [UInt8] {
        Array(bytes[(index == 0 ? 0 : ends[index - 1])...])
    }
}
