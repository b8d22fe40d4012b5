import Foundation
import NIOCore

/// Follows a reply's event stream as it arrives in pieces, on its bytes: whether a `token` event has come, and the
/// `error` and `done` events from their start, found even when a marker is split between two reads. At hundreds of
/// streams the load generator shares a core with the mock, so it reads without making a string of every piece.
struct ReplyStreamReader {
    // The server writes no space after the colon.
    private static let tokenMarker = Array("event:token".utf8)
    private static let errorMarker = Array("event:error".utf8)
    private static let doneMarker = Array("event:done".utf8)
    /// Bytes of one read kept for the next: enough to hold the start of a marker split between the two.
    private static let carried = 64

    private(set) var sawToken = false
    /// The `error` event from its start, which says why a reply failed (empty when none came).
    private(set) var error: [UInt8] = []
    /// The `done` event from its start: it carries the whole reply's HTML, so it can be long (empty until it comes).
    private(set) var done: [UInt8] = []
    /// The end of the last read, then this read: where the markers are looked for.
    private var window: [UInt8] = []

    /// Reads the next piece of the stream.
    mutating func read(_ buffer: ByteBuffer) {
        let piece = buffer.readableBytesView
        guard done.isEmpty else {
            done += piece
            return
        }
        window += piece
        if !sawToken, Self.offset(of: Self.tokenMarker, in: window) != nil { sawToken = true }
        if !error.isEmpty {
            error += piece
        } else if let start = Self.offset(of: Self.errorMarker, in: window) {
            error = Array(window[start...])
        }
        if let start = Self.offset(of: Self.doneMarker, in: window) {
            done = Array(window[start...])
        } else if window.count > Self.carried {
            window.removeFirst(window.count - Self.carried)
        }
    }

    /// Where `marker` first starts in `bytes`, if it is there.
    private static func offset(of marker: [UInt8], in bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { haystack in
            marker.withUnsafeBufferPointer { needle in
                guard let first = needle.first, haystack.count >= needle.count else { return nil }
                var start = 0
                while start <= haystack.count - needle.count {
                    // memchr finds the candidate starts; only they are compared in full.
                    guard
                        let found = memchr(
                            haystack.baseAddress! + start, Int32(first), haystack.count - needle.count + 1 - start)
                    else {
                        return nil
                    }
                    start = haystack.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
                    if memcmp(haystack.baseAddress! + start, needle.baseAddress!, needle.count) == 0 { return start }
                    start += 1
                }
                return nil
            }
        }
    }
}
