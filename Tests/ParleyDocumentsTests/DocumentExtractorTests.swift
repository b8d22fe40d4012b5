import Foundation
import Testing

@testable import ParleyDocuments

/// Documents' text as Parley reads it: PDFs page by page through pdftotext, DOCX through unzip, text in its encoding,
/// HTML as text; and every hostile or broken file refused with the reason, within the time, memory and size bounds.
@Suite struct DocumentExtractorTests {
    let extractor = DocumentExtractor()

    @Test func aPDFsTextIsReadPageByPageAndTheAnswerOnPageSevenStaysOnPageSeven() async throws {
        var pages = (1...9).map { "Page \($0) talks about the weather and nothing else." }
        pages[6] = "The quarterly review meets on Tuesday in room 42."
        let document = try await extractor.extract(name: "minutes.pdf", bytes: Fixtures.pdf(pages: pages))
        #expect(document.kind == .pdf && document.pages.count == 9)
        #expect(document.pages[6].contains("Tuesday in room 42"))
        let hits = document.chunks.filter { $0.text.contains("Tuesday") }
        #expect(hits.map(\.page) == [7])
    }

    @Test func brokenAndLockedPDFsAreRefusedWithTheirReason() async throws {
        let text = ["A secret plan."]
        await #expect(throws: DocumentRejection.passwordProtected) {
            try await extractor.extract(name: "locked.pdf", bytes: try Fixtures.encryptedPDF(pages: text))
        }
        await #expect(throws: DocumentRejection.noText) {
            try await extractor.extract(name: "scan.pdf", bytes: Fixtures.pdf(pages: ["", ""]))
        }
        let whole = Fixtures.pdf(pages: text)
        await #expect(throws: DocumentRejection.malformed) {
            try await extractor.extract(name: "cut.pdf", bytes: Array(whole.prefix(40)))
        }
        await #expect(throws: DocumentRejection.typeMismatch(name: "fake.pdf")) {
            try await extractor.extract(name: "fake.pdf", bytes: Array("just text".utf8))
        }
    }

    @Test func aDOCXsParagraphsAreReadAndAZipBombIsStopped() async throws {
        let document = try await extractor.extract(
            name: "notes.docx", bytes: try Fixtures.docx(paragraphs: ["First point.", "Second &amp; last."]))
        #expect(document.kind == .docx && document.pages == ["First point.\nSecond & last."])
        // 64 MB of XML in a ZIP of a few hundred KB, read by an extractor for 1 MB documents (8 MB of text at most).
        let bomb = try Fixtures.docx(paragraphs: ["Boom"], padding: 64 << 20)
        #expect(bomb.count < 1_048_576)
        await #expect(throws: DocumentRejection.tooCostly) {
            try await DocumentExtractor(maxBytes: 1_048_576).extract(name: "bomb.docx", bytes: bomb)
        }
        await #expect(throws: DocumentRejection.malformed) {
            try await extractor.extract(
                name: "empty.docx", bytes: [0x50, 0x4B, 0x03, 0x04] + Array(repeating: 0, count: 30))
        }
    }

    @Test func textIsReadInItsEncodingAndHTMLAsText() async throws {
        let latin1: [UInt8] = [0x63, 0x61, 0x66, 0xE9]  // "café" in Latin-1
        #expect(try await extractor.extract(name: "menu.txt", bytes: latin1).pages == ["café"])
        let utf8BOM: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("naïve".utf8)
        #expect(try await extractor.extract(name: "a.md", bytes: utf8BOM).pages == ["naïve"])
        let utf16: [UInt8] = [0xFF, 0xFE, 0x68, 0x00, 0x69, 0x00]  // "hi", UTF-16 LE
        #expect(try await extractor.extract(name: "b.csv", bytes: utf16).pages == ["hi"])
        let html =
            "<html><head><title>T</title><style>p{}</style><script>alert(1)</script></head>"
            + "<body><h1>Hello &amp; welcome</h1><p>A&nbsp;page &#8212; &lt;ok&gt;</p></body></html>"
        let page = try await extractor.extract(name: "page.html", bytes: Array(html.utf8)).pages[0]
        #expect(page == "T\n\nHello & welcome\n\nA page — <ok>")
        #expect(try await extractor.extract(name: "main.swift", bytes: Array("let x = 1".utf8)).kind == .text)
    }

    @Test func namesTypesAndSizesOutsideTheRulesAreRefused() async throws {
        for name in [
            "", "../etc/passwd.txt", "a/b.txt", "bad\u{0}.txt", "bell\u{7}.md", String(repeating: "n", count: 201),
        ] {
            await #expect(throws: DocumentRejection.badName, "\(name)") {
                try await extractor.extract(name: name, bytes: Array("x".utf8))
            }
        }
        await #expect(throws: DocumentRejection.unsupported(name: "tool.exe")) {
            try await extractor.extract(name: "tool.exe", bytes: [0x4D, 0x5A])
        }
        await #expect(throws: DocumentRejection.typeMismatch(name: "binary.txt")) {
            try await extractor.extract(name: "binary.txt", bytes: [0x41, 0x00, 0x42])
        }
        await #expect(throws: DocumentRejection.tooLarge(limit: 10)) {
            try await DocumentExtractor(maxBytes: 10).extract(name: "big.txt", bytes: Array(repeating: 0x41, count: 11))
        }
        await #expect(throws: DocumentRejection.noText) {
            try await extractor.extract(name: "blank.txt", bytes: Array("  \n\n ".utf8))
        }
    }
}
