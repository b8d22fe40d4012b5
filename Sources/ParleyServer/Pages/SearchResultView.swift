import ParleyCore

/// A search result as the search page shows it: the user's text escaped, the matches wrapped in our `<mark>`.
enum SearchResultView {
    /// The template values of a hit.
    static func values(_ hit: SearchHit) -> [String: Any] {
        var values: [String: Any] = [
            "href": hit.messageID.map { "/c/\(hit.conversationID)?at=\($0)#m\($0)" } ?? "/c/\(hit.conversationID)",
            "title_html": html(marked: hit.title),
            "snippet_html": html(marked: hit.snippet),
            "archived": hit.archived,
        ]
        values["role"] = hit.role?.rawValue
        return values
    }

    /// HTML of text whose matches are marked with `SearchHit`'s private-use characters: everything else escaped,
    /// the marks turned into balanced `<mark>` elements (a stray mark character typed by a user cannot unbalance them).
    static func html(marked text: String) -> String {
        var html = ""
        var isOpen = false
        for character in text {
            switch character {
            case SearchHit.markStart where !isOpen: html += "<mark>"; isOpen = true
            case SearchHit.markEnd where isOpen: html += "</mark>"; isOpen = false
            case SearchHit.markStart, SearchHit.markEnd: break
            default: HTMLText.append(character, to: &html)
            }
        }
        return isOpen ? html + "</mark>" : html
    }
}
