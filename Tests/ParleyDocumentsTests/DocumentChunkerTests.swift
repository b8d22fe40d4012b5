import ParleyCore
import Testing

@testable import ParleyDocuments

/// Chunks of about 300 to 800 tokens, by paragraphs and headings, on one page each, overlapping by a short paragraph.
@Suite struct DocumentChunkerTests {
    let chunker = DocumentChunker()

    /// A paragraph of about `tokens` tokens of prose, as Parley estimates them (`lorem ` is 1.5 tokens).
    static func paragraph(_ label: String, tokens: Int) -> String {
        ([label] + Array(repeating: "lorem", count: tokens * 2 / 3)).joined(separator: " ")
    }

    @Test func chunksStayWithinTheirSizesAndTheirPages() {
        let first = (1...12).map { Self.paragraph("p\($0)", tokens: 120) }.joined(separator: "\n\n")
        let second = Self.paragraph("only", tokens: 50)
        let chunks = chunker.chunks(of: [first, second])
        #expect(chunks.allSatisfy { ContextWindow.estimatedTokens($0.text) <= chunker.limit })
        // Only a page's last chunk may be short.
        let notLastOfPage = chunks.indices.dropLast().filter { chunks[$0].page == chunks[$0 + 1].page }
        #expect(notLastOfPage.allSatisfy { ContextWindow.estimatedTokens(chunks[$0].text) >= chunker.minimum })
        #expect(chunks.map(\.ordinal) == Array(0..<chunks.count))
        #expect(chunks.last?.page == 2 && chunks.last?.text == second)
        #expect(chunks.filter { $0.page == 1 }.count >= 3)
        // Every paragraph is in some chunk.
        for number in 1...12 { #expect(chunks.contains { $0.text.contains("p\(number) ") }) }
    }

    @Test func aHeadingStartsAChunkAndAShortParagraphIsRepeatedAcrossTheCut() {
        let text = [
            Self.paragraph("intro", tokens: 320), "A short bridge.", "# Second part",
            Self.paragraph("body", tokens: 200),
        ].joined(separator: "\n\n")
        let chunks = chunker.chunks(of: [text])
        #expect(chunks.count == 2)
        #expect(chunks[1].text.hasPrefix("# Second part"), "a heading opens its chunk")
        let long = [Self.paragraph("a", tokens: 450), "Short tail.", Self.paragraph("b", tokens: 450)]
            .joined(separator: "\n\n")
        let overlapping = chunker.chunks(of: [long])
        #expect(overlapping.count == 2 && overlapping[1].text.hasPrefix("Short tail."))
    }

    @Test func aParagraphLongerThanTheLimitIsCut() {
        let huge = String(repeating: "word ", count: 2_000)
        let chunks = chunker.chunks(of: [huge])
        #expect(chunks.count >= 3)
        #expect(chunks.allSatisfy { ContextWindow.estimatedTokens($0.text) <= chunker.limit })
    }
}
