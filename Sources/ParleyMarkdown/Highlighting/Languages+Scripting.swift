/// The definitions of the scripting and functional languages.
extension LanguageDefinition {
    static let python = LanguageDefinition(
        keywords: """
            and as assert async await break class continue def del elif else except finally for from global if import
            in is lambda nonlocal not or pass raise return try while with yield match case
            """,
        literals: "True False None", types: "bool bytes complex dict float frozenset int list object set str tuple",
        declarations: ["def": .function, "class": .type], lineComments: ["#"],
        strings: [StringRule(#"""""#, multiline: true), StringRule("'''", multiline: true)] + quotedStrings,
        stringPrefixes: "r u b f br rb fr rf", atSigil: .meta, capitalizedTypes: true)

    static let ruby = LanguageDefinition(
        keywords: """
            alias and begin BEGIN break case class def defined? do else elsif end END ensure for if in module next not
            or redo rescue retry return self super then undef unless until when while yield
            """,
        literals: "true false nil",
        functions: """
            require require_relative include extend prepend attr_accessor attr_reader attr_writer private protected
            public raise puts print p loop lambda proc
            """,
        declarations: ["def": .function, "class": .type, "module": .type], identifierContinues: "?!",
        lineComments: ["#"], blockComments: [BlockComment("=begin", "=end")],
        strings: ["\"", "`", "'"].map {
            StringRule($0, multiline: true, interpolation: $0 == "'" ? nil : Interpolation(code: "#{"))
        },
        heredocs: true, regexLiterals: true, atSigil: .variable, variableSigils: "$",
        specialVariables: "!@&~0123456789?$",
        colonSymbols: true, capitalizedTypes: true)

    static let perl = LanguageDefinition(
        keywords: """
            my our local sub if elsif else unless while until for foreach do last next redo return use no package
            require BEGIN END and or not eq ne lt gt le ge cmp qw wantarray
            """,
        literals: "undef",
        functions: """
            print printf say die warn open close push pop shift unshift split join keys values each defined exists
            delete scalar ref bless chomp chop length substr index sprintf map grep sort reverse lc uc
            """,
        declarations: ["sub": .function, "package": .type], lineComments: ["#"],
        blockComments: [BlockComment("=pod", "=cut"), BlockComment("=head1", "=cut")],
        strings: [
            StringRule("\"", multiline: true, interpolation: Interpolation(variables: "$@")),
            StringRule("'", multiline: true), StringRule("`", multiline: true),
        ],
        heredocs: true, regexLiterals: true, variableSigils: "$@%", specialVariables: "!@/\\,;.0123456789&")

    static let php = LanguageDefinition(
        keywords: """
            abstract and as break callable case catch class clone const continue declare default do echo else elseif
            empty enddeclare endfor endforeach endif endswitch endwhile enum extends final finally fn for foreach
            function global goto if implements include include_once instanceof insteadof interface isset list match
            namespace new or print private protected public readonly require require_once return static switch throw
            trait try unset use var while xor yield
            """,
        literals: "true false null",
        types: "array bool callable float int iterable mixed never object string void self parent",
        declarations: ["function": .function, "class": .type, "interface": .type, "trait": .type, "enum": .type],
        caseInsensitive: true, lineComments: ["//", "#"], blockComments: cBlockComments,
        strings: [
            StringRule("\"", multiline: true, interpolation: Interpolation(variables: "$")),
            StringRule("'", multiline: true),
        ],
        heredocs: true, markers: ["<?php", "<?=", "?>"].map { Marker($0, as: .meta) }, variableSigils: "$",
        capitalizedTypes: true)

    static let lua = LanguageDefinition(
        keywords: """
            and break do else elseif end for function goto if in local not or repeat return then until while
            """,
        literals: "nil true false", declarations: ["function": .function], lineComments: ["--"],
        blockComments: [BlockComment("--[[", "]]")],
        strings: quotedStrings + [StringRule("[[", "]]", escape: nil, multiline: true)])

    static let r = LanguageDefinition(
        keywords: "if else repeat while function for in next break switch",
        literals: "TRUE FALSE NULL NA NaN Inf NA_integer_ NA_real_ NA_character_", identifierContinues: ".",
        lineComments: ["#"], strings: [StringRule("\"", multiline: true), StringRule("'", multiline: true)])

    static let elixir = LanguageDefinition(
        keywords: """
            after alias and case catch cond def defdelegate defexception defguard defimpl defmacro defmacrop defmodule
            defp defprotocol defstruct do else end fn for if import in not or quote raise receive require rescue
            reraise try unless unquote use when with
            """,
        literals: "true false nil",
        declarations: [
            "def": .function, "defp": .function, "defmacro": .function, "defmacrop": .function, "defguard": .function,
            "defmodule": .type, "defprotocol": .type, "defimpl": .type,
        ],
        identifierContinues: "?!", lineComments: ["#"],
        strings: [#"""""#, "'''", "\"", "'"].map {
            StringRule($0, multiline: true, interpolation: Interpolation(code: "#{"))
        },
        atSigil: .meta, colonSymbols: true, capitalizedTypes: true)

    static let haskell = LanguageDefinition(
        keywords: """
            case class data default deriving do else family forall foreign hiding if import in infix infixl infixr
            instance let mdo module newtype of qualified then type where
            """,
        literals: "True False",
        declarations: ["data": .type, "newtype": .type, "type": .type, "class": .type], identifierContinues: "'",
        lineComments: ["--"],
        blockComments: [BlockComment("{-#", "#-}", as: .meta), BlockComment("{-", "-}", nests: true)],
        strings: [StringRule("\"")], characterLiterals: true, capitalizedTypes: true)

    static let shell = LanguageDefinition(
        keywords: """
            if then else elif fi case esac for select while until do done in function time coproc return exit break
            continue local export readonly declare typeset unset shift source alias set eval exec trap
            """,
        literals: "true false",
        functions: """
            echo printf read cd pwd test let shopt getopts wait kill jobs bg fg umask ulimit type command builtin hash
            """,
        declarations: ["function": .function], identifierStarts: "-/", identifierContinues: "-./",
        lineComments: ["#"], lineCommentsNeedBlank: true,
        strings: [
            StringRule("\"", multiline: true, interpolation: Interpolation(code: "$(", variables: "$")),
            StringRule("$'", "'", multiline: true), StringRule("'", escape: nil, multiline: true),
        ],
        heredocs: true, variableSigils: "$", specialVariables: "@*#?$!-0123456789")

    static let powershell = LanguageDefinition(
        keywords: """
            begin break catch class continue data define do dynamicparam else elseif end enum exit filter finally for
            foreach from function hidden if in param process return static switch throw trap try until using var while
            workflow -and -or -not -xor -band -bor -bxor -bnot -eq -ne -gt -ge -lt -le -like -notlike -match -notmatch
            -contains -notcontains -in -notin -replace -split -join -is -isnot -as -f -ceq -cne -ieq -ine -clike
            -cmatch
            """,
        types: """
            string int long double decimal bool char byte array hashtable object void datetime psobject pscustomobject
            """,
        declarations: ["function": .function, "class": .type, "enum": .type], caseInsensitive: true,
        identifierStarts: "-", identifierContinues: "-", lineComments: ["#"], blockComments: [BlockComment("<#", "#>")],
        strings: [
            StringRule(
                "@\"", "\"@", escape: "`", multiline: true, interpolation: Interpolation(code: "$(", variables: "$")),
            StringRule("@'", "'@", escape: nil, multiline: true),
            StringRule("\"", escape: "`", multiline: true, interpolation: Interpolation(code: "$(", variables: "$")),
            StringRule("'", escape: nil, multiline: true),
        ],
        variableSigils: "$", specialVariables: "?^$")
}
