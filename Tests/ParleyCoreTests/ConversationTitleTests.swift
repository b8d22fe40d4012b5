import Testing

@testable import ParleyCore

/// Titles made from a first message and from a model's answer.
@Suite struct ConversationTitleTests {
    @Test("markdown's marks around words go; marks inside a word, as in snake_case, stay")
    func marksAroundWordsGo() {
        #expect(
            ConversationTitle.fromFirstMessage("# Why does **t__add** fail in `parse_args`?")
                == "Why does t__add fail in parse_args?")
        #expect(ConversationTitle.fromFirstMessage("> _quoted_ ~~old~~ text") == "quoted old text")
        #expect(ConversationTitle.fromFirstMessage("** __ ``") == nil)
        #expect(ConversationTitle.fromModel("Title: \"**my_var** naming\".") == "my_var naming")
    }

    @Test("the first eight words, at most 60 characters")
    func firstWordsAreBounded() {
        #expect(
            ConversationTitle.fromFirstMessage("one two three four five six seven eight nine")
                == "one two three four five six seven eight")
        let long = String(repeating: "x", count: 70)
        #expect(ConversationTitle.fromFirstMessage(long) == String(repeating: "x", count: 60) + "…")
    }
}
