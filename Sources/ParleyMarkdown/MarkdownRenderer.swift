/// Renders markdown to safe HTML with cmark-gfm (GFM tables, strikethrough, autolinks, task lists, tagfilter; safe
/// mode, never CMARK_OPT_UNSAFE).
public enum MarkdownRenderer {
    /// Renders a whole markdown document to HTML.
    public static func html(_ markdown: String) -> String {
        CmarkDocument(Array(markdown.utf8)).html()
    }
}
