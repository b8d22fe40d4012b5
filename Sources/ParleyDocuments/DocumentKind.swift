import ParleyCore

extension DocumentKind {
    /// The extensions read as HTML.
    static let htmlExtensions: Set<String> = ["html", "htm", "xhtml"]

    /// Every extension Parley reads, sorted: what a file input's `accept` offers.
    public static let acceptedExtensions = (["pdf", "docx"] + htmlExtensions + textExtensions).sorted()

    /// The extensions read as text.
    static let textExtensions: Set<String> = [
        "txt", "text", "md", "markdown", "csv", "tsv", "json", "jsonl", "xml", "yaml", "yml", "toml", "ini", "log",
        "rst", "tex", "swift", "py", "js", "mjs", "ts", "tsx", "jsx", "java", "kt", "c", "h", "cc", "cpp", "hpp", "m",
        "go", "rs", "rb", "php", "cs", "scala", "sh", "bash", "zsh", "sql", "css", "scss", "lua", "pl", "r", "dart",
        "ex", "exs", "erl", "hs", "clj", "vue", "svelte", "gradle", "proto", "graphql",
    ]

    /// The kind of a document named `name` holding `bytes`: by extension, the bytes confirming it (a PDF starts with
    /// `%PDF-`, a DOCX is a ZIP, text holds no NUL byte).
    public static func detect(name: String, bytes: [UInt8]) throws(DocumentRejection) -> DocumentKind {
        let ext = name.split(separator: ".").count > 1 ? String(name.split(separator: ".").last!).lowercased() : ""
        let kind: DocumentKind
        switch ext {
        case "pdf": kind = .pdf
        case "docx": kind = .docx
        case _ where htmlExtensions.contains(ext): kind = .html
        case _ where textExtensions.contains(ext): kind = .text
        default: throw .unsupported(name: name)
        }
        let matches: Bool
        switch kind {
        case .pdf: matches = bytes.starts(with: Array("%PDF-".utf8))
        case .docx: matches = bytes.starts(with: [0x50, 0x4B, 0x03, 0x04])
        case .text, .html: matches = !bytes.prefix(8_192).contains(0) || TextDecoding.hasUTF16ByteOrderMark(bytes)
        }
        guard matches else { throw .typeMismatch(name: name) }
        return kind
    }
}
