/// How code in one language is read: by the table-driven lexer with the language's definition, or by a lexer of its
/// own where a table does not fit.
enum Grammar: Sendable {
    /// A language the table-driven lexer reads with its definition.
    case generic(LanguageDefinition)
    /// HTML and XML.
    case markup
    /// CSS, or SCSS.
    case styleSheet(scss: Bool)
    /// JSON, JSONC and JSON5.
    case json
    /// YAML.
    case yaml
    /// INI-style files, or TOML.
    case config(toml: Bool)
    /// Unified and normal diffs.
    case diff
    /// Markdown, with fenced code in its own language.
    case markdown
    /// Dockerfiles, with instructions' arguments as shell.
    case dockerfile
    /// Makefiles, with recipes as shell.
    case makefile
    /// Terminal sessions: prompts and shell commands among output.
    case console

    /// The deepest nesting of embedded languages and interpolations still highlighted; deeper, code is left as it
    /// is (bounds the recursion).
    static let maximumDepth = 8

    /// Lexes from the scanner's position to its end; `depth` counts the languages this one is embedded in.
    func lex(_ s: inout SourceScanner, depth: Int) {
        switch self {
        case .generic(let language): GenericLexer(language: language, depth: depth).lex(&s)
        case .markup: MarkupLexer(depth: depth).lex(&s)
        case .styleSheet(let scss): StyleSheetLexer(scss: scss).lex(&s)
        case .json: JSONLexer().lex(&s)
        case .yaml: YAMLLexer().lex(&s)
        case .config(let toml): ConfigLexer(toml: toml).lex(&s)
        case .diff: DiffLexer().lex(&s)
        case .markdown: MarkdownLexer(depth: depth).lex(&s)
        case .dockerfile: DockerfileLexer(depth: depth).lex(&s)
        case .makefile: MakefileLexer(depth: depth).lex(&s)
        case .console: ConsoleLexer(depth: depth).lex(&s)
        }
    }
}
