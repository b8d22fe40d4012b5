/// The names and aliases a fence may give each language, matched without regard to case.
enum LanguageNames {
    private static let grammars: [String: Grammar] = {
        let names: [(Grammar, String)] = [
            (.generic(.c), "c h"),
            (.generic(.cpp), "cpp c++ cc cxx hpp hh hxx h++ ino arduino"),
            (.generic(.csharp), "cs csharp c#"),
            (.generic(.objectiveC), "objc objective-c objectivec obj-c mm"),
            (.generic(.java), "java"),
            (.generic(.kotlin), "kotlin kt kts"),
            (.generic(.scala), "scala sc sbt"),
            (.generic(.dart), "dart"),
            (.generic(.go), "go golang"),
            (.generic(.rust), "rust rs"),
            (.generic(.swift), "swift"),
            (.generic(.zig), "zig"),
            (.generic(.javascript), "javascript js jsx mjs cjs node"),
            (.generic(.typescript), "typescript ts tsx mts cts"),
            (.generic(.protobuf), "protobuf proto"),
            (.generic(.python), "python py python3 py3 pyi gyp"),
            (.generic(.ruby), "ruby rb rake gemspec podspec"),
            (.generic(.perl), "perl pl pm"),
            (.generic(.php), "php"),
            (.generic(.lua), "lua"),
            (.generic(.r), "r"),
            (.generic(.elixir), "elixir ex exs"),
            (.generic(.haskell), "haskell hs"),
            (.generic(.shell), "sh bash shell zsh ksh"),
            (.generic(.powershell), "powershell ps1 ps psm1 pwsh"),
            (.generic(.sql), "sql mysql postgres postgresql pgsql plpgsql plsql sqlite tsql mssql"),
            (.generic(.graphql), "graphql gql"),
            (.generic(.hcl), "hcl tf terraform tfvars"),
            (.markup, "html htm xhtml xml svg xsl xslt plist vue svelte"),
            (.styleSheet(scss: false), "css"),
            (.styleSheet(scss: true), "scss"),
            (.json, "json jsonc json5 jsonl ndjson geojson"),
            (.yaml, "yaml yml"),
            (.config(toml: true), "toml"),
            (.config(toml: false), "ini cfg conf properties editorconfig gitconfig dotenv env"),
            (.diff, "diff patch udiff"),
            (.markdown, "markdown md mkd"),
            (.dockerfile, "dockerfile docker containerfile"),
            (.makefile, "makefile make mk mak"),
            (.console, "console shell-session shellsession terminal"),
        ]
        var grammars: [String: Grammar] = [:]
        for (grammar, aliases) in names {
            for alias in aliases.split(separator: " ") { grammars[String(alias)] = grammar }
        }
        return grammars
    }()

    /// The grammar for `name`, ignoring case, or nil if it names no known language.
    static func grammar(named name: String) -> Grammar? {
        grammars[name.lowercased()]
    }
}
