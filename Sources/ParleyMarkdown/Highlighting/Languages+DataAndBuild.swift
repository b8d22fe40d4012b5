/// The definitions of query, configuration and build languages.
extension LanguageDefinition {
    static let sql = LanguageDefinition(
        keywords: """
            add all alter analyze and any as asc begin between by cascade case check column commit constraint create
            cross database declare default delete desc distinct drop else end except execute exists explain foreign
            from full function grant group having if in index inner insert intersect into is join key language left
            like limit not offset on or order outer over partition primary procedure range recursive references
            replace returning returns revoke right rollback row rows select set table then to transaction trigger
            truncate union unique update using values view when where window with
            """,
        literals: "null true false",
        types: """
            bigint binary bit blob bool boolean char date datetime decimal double float int integer interval json jsonb
            money nchar numeric nvarchar real serial smallint text time timestamp timestamptz tinyint uuid varbinary
            varchar
            """,
        caseInsensitive: true, lineComments: ["--"], blockComments: cBlockComments,
        strings: [
            StringRule("$$", escape: nil, multiline: true), StringRule("'", escape: nil, multiline: true),
            StringRule("\"", escape: nil), StringRule("`", escape: nil),
        ],
        atSigil: .variable, variableSigils: "$", specialVariables: "0123456789")

    static let graphql = LanguageDefinition(
        keywords: """
            query mutation subscription fragment on type interface union enum input scalar schema extend directive
            implements repeatable
            """,
        literals: "true false null", types: "ID Int Float String Boolean",
        declarations: [
            "type": .type, "interface": .type, "union": .type, "enum": .type, "input": .type, "scalar": .type,
            "query": .function, "mutation": .function, "subscription": .function, "fragment": .function,
        ],
        lineComments: ["#"], strings: [StringRule(#"""""#, multiline: true), StringRule("\"")], atSigil: .meta,
        variableSigils: "$", capitalizedTypes: true)

    static let hcl = LanguageDefinition(
        keywords: """
            resource data variable output locals module provider terraform backend required_providers dynamic
            lifecycle for in if
            """,
        literals: "true false null", types: "string number bool list map set object tuple any",
        lineComments: ["#", "//"], blockComments: cBlockComments,
        strings: [StringRule("\"", interpolation: Interpolation(code: "${"))], heredocs: true)

    /// Makefile lines other than recipes: directives, `$(…)` references and comments.
    static let make = LanguageDefinition(
        keywords: """
            ifeq ifneq ifdef ifndef else endif include sinclude define endef export unexport override private vpath
            """,
        lineComments: ["#"], variableSigils: "$", variableBrackets: "({", specialVariables: "@<^?*+%|$")

    /// A Makefile recipe: shell, with make's `$(NAME)` references.
    static let makeRecipe: LanguageDefinition = {
        var recipe = shell
        recipe.variableBrackets = make.variableBrackets
        recipe.specialVariables += make.specialVariables
        return recipe
    }()
}
