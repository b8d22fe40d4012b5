import Foundation
import Testing

@testable import ParleyTools

/// A stdio server's output is cut into its messages, a line each, wherever the reads fall, and a long line costs one
/// pass over its bytes.
@Suite struct LineSplitterTests {
    @Test("lines split across reads come whole, empty lines are dropped, a partial line waits")
    func splitsAcrossReads() {
        let splitter = LineSplitter()
        #expect(splitter.add(Data(#"{"a":"#.utf8)).isEmpty)
        #expect(splitter.add(Data("1}\n\n{\"b\":2}\n{\"c\"".utf8)) == [Data(#"{"a":1}"#.utf8), Data(#"{"b":2}"#.utf8)])
        #expect(splitter.add(Data(":3}\n".utf8)) == [Data(#"{"c":3}"#.utf8)])
    }

    @Test("a 4 MB line read 4 KB at a time comes whole, in well under a second")
    func longLine() {
        let splitter = LineSplitter()
        let line = Data(repeating: UInt8(ascii: "x"), count: 4 << 20)
        let started = ContinuousClock.now
        var lines: [Data] = []
        for start in stride(from: 0, to: line.count, by: 4_096) {
            lines += splitter.add(line[start..<min(start + 4_096, line.count)])
        }
        lines += splitter.add(Data("\n".utf8))
        #expect(lines == [line])
        #expect(started.duration(to: .now) < .seconds(1))
    }
}
