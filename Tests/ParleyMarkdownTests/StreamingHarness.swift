import ParleyMarkdown
import Testing

/// Streams deltas through an `IncrementalMarkdownRenderer` and checks the streaming invariant.
enum StreamingHarness {
    /// What one streaming run emitted, in UTF-8 bytes.
    struct Totals {
        /// All `append`s together.
        var appended = 0
        /// All `append`s and `tail`s together: the bytes a client would receive.
        var emitted = 0
    }

    /// Streams `deltas`, rendering after every `renderEvery`-th delta and after the last, and expects every `append`
    /// to continue the one-shot HTML exactly where the previous one stopped and the last tail to complete it.
    @discardableResult
    static func stream(
        _ deltas: [String], renderEvery: Int = 1,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Totals {
        let expected = MarkdownRenderer.html(deltas.joined())
        let expectedBytes = Array(expected.utf8)
        var renderer = IncrementalMarkdownRenderer()
        var totals = Totals()
        var tail = ""
        for (index, delta) in deltas.enumerated() {
            renderer.append(delta)
            guard (index + 1) % renderEvery == 0 || index == deltas.count - 1 else { continue }
            // As `MarkdownStream` does: only the last tail, which must complete the HTML, has its code highlighted.
            let update = renderer.render(highlightingTail: index == deltas.count - 1)
            let appended = Array(update.append.utf8)
            let continues =
                expectedBytes.count - totals.appended >= appended.count
                && expectedBytes[totals.appended..<(totals.appended + appended.count)].elementsEqual(appended)
            #expect(
                continues, "append diverged at delta \(index) of \(deltas.joined().debugDescription)",
                sourceLocation: sourceLocation)
            guard continues else { return totals }
            totals.appended += appended.count
            totals.emitted += appended.count + update.tail.utf8.count
            tail = update.tail
        }
        #expect(
            String(decoding: expectedBytes[..<totals.appended], as: UTF8.self) + tail == expected,
            sourceLocation: sourceLocation)
        #expect(totals.appended <= expectedBytes.count, sourceLocation: sourceLocation)
        return totals
    }
}

extension StreamingHarness {
    /// Streams `deltas` through a `MarkdownStream`, asking for an event after every `eventEvery`-th delta and a final
    /// one at the end, and expects the appends plus the last tail sent to equal the one-shot HTML.
    @discardableResult
    static func pacedStream(
        _ deltas: [String], eventEvery: Int = 1,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Totals {
        let expected = MarkdownRenderer.html(deltas.joined())
        var stream = MarkdownStream()
        var totals = Totals()
        var appended = ""
        var tail = ""
        for (index, delta) in deltas.enumerated() {
            stream.append(delta)
            let isLast = index == deltas.count - 1
            guard (index + 1) % eventEvery == 0 || isLast else { continue }
            let html = stream.next(final: isLast)
            appended += html.append
            totals.appended += html.append.utf8.count
            totals.emitted += html.append.utf8.count + (html.tail?.utf8.count ?? 0)
            if let newTail = html.tail { tail = newTail }
        }
        #expect(appended + tail == expected, sourceLocation: sourceLocation)
        #expect(!stream.isHoldingTail, sourceLocation: sourceLocation)
        return totals
    }
}
