import MCP
import Testing

@testable import ParleyTools

/// A result's blocks as text, cut at the limit with a note.
@Suite struct ToolResultTextTests {
    @Test func blocksBecomeText() {
        let text = ToolResultText.text(
            of: [
                .text(text: "first", annotations: nil, _meta: nil),
                .image(data: String(repeating: "A", count: 4_096), mimeType: "image/png", annotations: nil, _meta: nil),
            ], maxBytes: 1_024)
        #expect(text == "first\n\n[image: image/png, 3 KB, not shown]")
    }

    @Test func aLongTextIsCutAtACharacterWithANote() {
        let text = ToolResultText.bounded(String(repeating: "é", count: 2_048), maxBytes: 1_025)
        #expect(
            text == String(repeating: "é", count: 512) + "\n[truncated: the result was 4 KB, the first 1 KB are shown]")
    }
}
