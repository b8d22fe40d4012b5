import ParleyMarkdown
import Testing

/// cmark-gfm 0.29 flips process-wide tables of extension characters during every parse; concurrent renders must
/// still agree with sequential ones (without serialised parsing, a few percent lose their strikethrough or autolinks).
@Suite struct ConcurrencyTests {
    @Test func concurrentRendersMatchSequentialOnes() async {
        let documents =
            ["a ~~b~~ c www.example.com", "| a | b |\n|---|---|\n| ~~x~~ | https://e.com |"]
            + MarkdownCorpus.combinations(count: 8, seed: 99)
        let expected = documents.map(MarkdownRenderer.html)
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    (0..<100).allSatisfy { _ in documents.map(MarkdownRenderer.html) == expected }
                }
            }
            for await agreed in group {
                #expect(agreed)
            }
        }
    }
}
