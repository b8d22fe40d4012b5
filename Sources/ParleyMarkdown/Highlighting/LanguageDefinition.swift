/// What the table-driven lexer knows of one language: its words, comments, strings, sigils and naming conventions.
struct LanguageDefinition: Sendable {
    /// The class of each listed word: keywords, literals, built-in types and functions.
    private(set) var words: [WordKey: TokenClass] = [:]
    /// Keywords after which the next word is a name of the given class (`def` → function, `class` → type).
    private(set) var declarations: [WordKey: TokenClass] = [:]
    /// Whether words match regardless of ASCII case.
    let caseInsensitive: Bool
    /// For each byte: 1 if it starts an identifier when a letter or `_` follows (`$` in JavaScript, `-` in
    /// PowerShell), 2 if it continues one (`?` in Ruby, `'` in Haskell); word bytes do both anyway.
    private var identifierBytes = [UInt8](repeating: 0, count: 256)
    /// Markers of comments that run to the end of the line.
    let lineComments: [[UInt8]]
    /// Whether a line comment marker counts only at a line start or after a blank or `;` (`#` in shell).
    let lineCommentsNeedBlank: Bool
    /// Block comments, tried in order (list `{-#` before `{-`).
    let blockComments: [BlockComment]
    /// String rules, tried in order (list `"""` before `"`).
    var strings: [StringRule]
    /// Words that may prefix a string rule's opener (`r"…"`, `b'…'`, `u8"…"`), lowercase.
    private(set) var stringPrefixes: Set<WordKey> = []
    /// How raw strings open, if the language has them beside its string rules.
    var rawStrings: RawStrings?
    /// Whether `'` opens a one-character literal (`'a'`, `'\n'`); if nothing closes it, it is not a string.
    let characterLiterals: Bool
    /// Whether `<<EOF` (and its variants) opens a heredoc whose body starts on the next line.
    let heredocs: Bool
    /// Whether `/…/` after an operator or keyword is a regular expression.
    let regexLiterals: Bool
    /// How `#` marks compiler directives, if it does.
    let directives: Directives?
    /// Fixed tokens with a class of their own, such as PHP's `<?php` and `?>`.
    let markers: [Marker]
    /// The class of `@name`: an annotation or decorator (meta), an instance variable, a built-in (Zig), or nothing.
    var atSigil: TokenClass?
    /// Sigils of variables outside strings (`$` in shell, `$@%` in Perl).
    let variableSigils: [UInt8]
    /// Brackets that wrap a variable's name after its sigil (`${name}`; `$(name)` in Makefiles).
    var variableBrackets: [UInt8]
    /// Bytes that are a whole variable name after a sigil (`$1`, `$?`, `$@` in shell).
    var specialVariables: [UInt8]
    /// Whether `:name` is a symbol (Ruby, Elixir).
    let colonSymbols: Bool
    /// Whether `name!(` is a macro call (Rust).
    let bangMacros: Bool
    /// Whether a word with a capital first letter and a lowercase letter is a type (where that is the convention).
    var capitalizedTypes: Bool
    /// A byte besides `_` that may separate digits (`'` in C++).
    var digitSeparator: UInt8?

    /// A language from space-separated word lists and its rules; see the properties for each.
    init(
        keywords: String, literals: String = "", types: String = "", functions: String = "",
        declarations: [String: TokenClass] = [:], caseInsensitive: Bool = false, identifierStarts: String = "",
        identifierContinues: String = "", lineComments: [String] = [], lineCommentsNeedBlank: Bool = false,
        blockComments: [BlockComment] = [], strings: [StringRule] = [], stringPrefixes: String = "",
        rawStrings: RawStrings? = nil, characterLiterals: Bool = false, heredocs: Bool = false,
        regexLiterals: Bool = false, directives: Directives? = nil, markers: [Marker] = [],
        atSigil: TokenClass? = nil, variableSigils: String = "", variableBrackets: String = "{",
        specialVariables: String = "", colonSymbols: Bool = false, bangMacros: Bool = false,
        capitalizedTypes: Bool = false, digitSeparator: Character? = nil
    ) {
        self.caseInsensitive = caseInsensitive
        self.lineComments = lineComments.map { Array($0.utf8) }
        self.lineCommentsNeedBlank = lineCommentsNeedBlank
        self.blockComments = blockComments
        self.strings = strings
        self.rawStrings = rawStrings
        self.characterLiterals = characterLiterals
        self.heredocs = heredocs
        self.regexLiterals = regexLiterals
        self.directives = directives
        self.markers = markers
        self.atSigil = atSigil
        self.variableSigils = Array(variableSigils.utf8)
        self.variableBrackets = Array(variableBrackets.utf8)
        self.specialVariables = Array(specialVariables.utf8)
        self.colonSymbols = colonSymbols
        self.bangMacros = bangMacros
        self.capitalizedTypes = capitalizedTypes
        self.digitSeparator = digitSeparator?.asciiValue
        for byte in identifierStarts.utf8 { identifierBytes[Int(byte)] |= 1 }
        for byte in identifierContinues.utf8 { identifierBytes[Int(byte)] |= 2 }
        self.stringPrefixes = Set(Self.split(stringPrefixes).compactMap { WordKey($0, folding: true) })
        add(keywords: keywords, literals: literals, types: types, functions: functions)
        addDeclarations(declarations)
    }

    /// This language with more listed words and declaring keywords (TypeScript from JavaScript, C++ from C).
    func adding(
        keywords: String = "", literals: String = "", types: String = "", declarations: [String: TokenClass] = [:]
    ) -> LanguageDefinition {
        var language = self
        language.add(keywords: keywords, literals: literals, types: types, functions: "")
        language.addDeclarations(declarations)
        return language
    }

    /// Whether an identifier starts at `byte`, followed by `next`.
    func startsIdentifier(_ byte: UInt8, next: UInt8) -> Bool {
        byte.isWordStart || (identifierBytes[Int(byte)] & 1 != 0 && next.isWordStart)
    }

    /// Whether `byte` continues an identifier.
    func continuesIdentifier(_ byte: UInt8) -> Bool {
        byte.isWordByte || identifierBytes[Int(byte)] & 2 != 0
    }

    /// Lists each word of the space- or newline-separated lists with its class; keywords win over other classes.
    private mutating func add(keywords: String, literals: String, types: String, functions: String) {
        for (list, kind) in [
            (functions, TokenClass.function), (types, .type), (literals, .literal), (keywords, .keyword),
        ] {
            for word in Self.split(list) {
                if let key = WordKey(word, folding: caseInsensitive) { words[key] = kind }
            }
        }
    }

    /// Lists each declaring keyword with the class of the name it declares.
    private mutating func addDeclarations(_ declaringWords: [String: TokenClass]) {
        for (word, kind) in declaringWords {
            if let key = WordKey(Substring(word), folding: caseInsensitive) { declarations[key] = kind }
        }
    }

    /// The words of a space- or newline-separated list.
    private static func split(_ list: String) -> [Substring] {
        list.split(whereSeparator: { $0 == " " || $0 == "\n" })
    }
}

/// The comment and string rules many languages share.
extension LanguageDefinition {
    static let slashComments = ["//"]
    static let cBlockComments = [BlockComment("/*", "*/")]
    static let nestingBlockComments = [BlockComment("/*", "*/", nests: true)]
    static let quotedStrings = [StringRule("\""), StringRule("'")]
}

/// A block comment's delimiters; `nests` if the language counts inner openers (Rust, Swift, Haskell). Pragmas such
/// as Haskell's `{-# … #-}` are written as meta.
struct BlockComment: Sendable {
    let open: [UInt8]
    let close: [UInt8]
    let nests: Bool
    let kind: TokenClass

    /// A block comment from `open` to `close`, written in class `kind`.
    init(_ open: String, _ close: String, nests: Bool = false, as kind: TokenClass = .comment) {
        self.open = Array(open.utf8)
        self.close = Array(close.utf8)
        self.nests = nests
        self.kind = kind
    }
}

/// A string literal: its delimiters, the byte that escapes the next one (nil in raw strings), whether it may span
/// lines (if not, an unterminated one ends at the line break) and what it embeds.
struct StringRule: Sendable {
    let open: [UInt8]
    let close: [UInt8]
    let escape: UInt8?
    let multiline: Bool
    let interpolation: Interpolation?

    /// A string from `open` to `close` (by default `open` again), escaped by `escape`.
    init(
        _ open: String, _ close: String? = nil, escape: Character? = "\\", multiline: Bool = false,
        interpolation: Interpolation? = nil
    ) {
        self.open = Array(open.utf8)
        self.close = Array((close ?? open).utf8)
        self.escape = escape?.asciiValue
        self.multiline = multiline
        self.interpolation = interpolation
    }
}

/// What a string embeds: code after `code` up to the bracket matching its last byte (`${…}`, `\(…)`, `#{…}`,
/// `$(…)`), and variables after one of `variableSigils` (`$name`).
struct Interpolation: Sendable {
    let code: [UInt8]?
    let variableSigils: [UInt8]

    /// Interpolation of code after `code` and of variables after each byte of `variables`.
    init(code: String? = nil, variables: String = "") {
        self.code = code.map { Array($0.utf8) }
        variableSigils = Array(variables.utf8)
    }

    /// The bracket that ends the embedded code.
    var codeCloser: UInt8? { code?.last?.closingBracket }
}

/// Raw strings, in which a backslash escapes nothing.
enum RawStrings: Sendable {
    /// Closed by the quote (or `"""`) that opened them and as many `#` as came before it: Rust's `r#"…"#` (after one
    /// of `prefixes`), Swift's `#"…"#` (no prefix, at least one `#`).
    case hashed(prefixes: [[UInt8]], minimumHashes: Int)
    /// C++'s `R"delimiter(…)delimiter"`, after one of `openers` (`R"`, `u8R"`, …).
    case parenthesized(openers: [[UInt8]])
}

/// How `#` marks compiler directives.
enum Directives: Sendable {
    /// C's preprocessor: `#word` at a line start; after `include` or `import`, `<file>` is a string.
    case preprocessorLines
    /// Swift's `#if`, `#available`, `#selector`: `#` and a word, anywhere.
    case hashWords
    /// Rust's attributes `#[…]` and `#![…]`, up to the matching bracket.
    case attributes
}

/// A fixed token with a class of its own.
struct Marker: Sendable {
    let bytes: [UInt8]
    let kind: TokenClass

    /// The marker `text`, written in class `kind`.
    init(_ text: String, as kind: TokenClass) {
        bytes = Array(text.utf8)
        self.kind = kind
    }
}
