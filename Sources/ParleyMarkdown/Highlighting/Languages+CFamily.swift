/// The definitions of the C family and the other languages with C's comments and braces.
extension LanguageDefinition {
    static let c = LanguageDefinition(
        keywords: """
            auto break case const constexpr continue default do else enum extern for goto if inline register restrict
            return sizeof static struct switch typedef typeof union volatile while _Alignas _Alignof _Atomic _Generic
            _Noreturn _Static_assert _Thread_local alignas alignof static_assert thread_local
            """,
        literals: "NULL true false nullptr",
        types: """
            bool char double float int long short signed unsigned void _Bool size_t ssize_t ptrdiff_t intptr_t
            uintptr_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t wchar_t FILE
            """,
        declarations: ["struct": .type, "enum": .type, "union": .type],
        lineComments: slashComments, blockComments: cBlockComments, strings: [StringRule("\"")],
        stringPrefixes: "L u U u8", characterLiterals: true, directives: .preprocessorLines)

    static let cpp: LanguageDefinition = {
        var cpp = c.adding(
            keywords: """
                and and_eq asm bitand bitor catch class co_await co_return co_yield compl concept const_cast consteval
                constinit decltype delete dynamic_cast explicit export final friend mutable namespace new noexcept not
                not_eq operator or or_eq override private protected public reinterpret_cast requires static_cast
                template this throw try typeid typename using virtual xor xor_eq
                """,
            types: "auto char8_t char16_t char32_t", declarations: ["class": .type, "namespace": .type])
        cpp.rawStrings = .parenthesized(openers: ["R\"", "LR\"", "uR\"", "UR\"", "u8R\""].map { Array($0.utf8) })
        cpp.digitSeparator = UInt8(ascii: "'")
        cpp.capitalizedTypes = true
        return cpp
    }()

    static let objectiveC: LanguageDefinition = {
        var objectiveC = c.adding(
            keywords: """
                self super in out inout bycopy byref oneway __block __weak __strong __unsafe_unretained __bridge
                nonatomic atomic strong weak copy assign retain readonly readwrite getter setter nullable nonnull
                """,
            literals: "YES NO nil Nil", types: "id BOOL SEL IMP Class instancetype NSInteger NSUInteger CGFloat")
        objectiveC.strings.insert(StringRule("@\"", "\""), at: 0)
        objectiveC.atSigil = .meta
        objectiveC.capitalizedTypes = true
        return objectiveC
    }()

    static let csharp = LanguageDefinition(
        keywords: """
            abstract as base break case catch checked class const continue default delegate do else enum event
            explicit extern finally fixed for foreach goto if implicit in interface internal is lock namespace new
            operator out override params private protected public readonly record ref return sealed sizeof stackalloc
            static struct switch this throw try typeof unchecked unsafe using virtual volatile while add alias async
            await by descending equals from get global group init into join let nameof notnull on orderby partial
            remove required select set unmanaged value var when where with yield
            """,
        literals: "true false null",
        types: """
            bool byte char decimal double dynamic float int long nint nuint object sbyte short string uint ulong ushort
            void
            """,
        declarations: ["class": .type, "struct": .type, "interface": .type, "enum": .type, "record": .type],
        lineComments: slashComments, blockComments: cBlockComments,
        strings: [
            StringRule(#"""""#, escape: nil, multiline: true), StringRule("@$\"", "\"", escape: nil, multiline: true),
            StringRule("$@\"", "\"", escape: nil, multiline: true),
            StringRule("@\"", "\"", escape: nil, multiline: true),
            StringRule("$\"", "\""), StringRule("\""),
        ],
        characterLiterals: true, directives: .preprocessorLines, capitalizedTypes: true)

    static let java = LanguageDefinition(
        keywords: """
            abstract assert break case catch class const continue default do else enum exports extends final finally
            for goto if implements import instanceof interface module native new open opens package permits private
            protected provides public record requires return sealed static strictfp super switch synchronized this
            throw throws to transient transitive try uses var volatile while with yield
            """,
        literals: "true false null", types: "boolean byte char double float int long short void",
        declarations: ["class": .type, "interface": .type, "enum": .type, "record": .type],
        lineComments: slashComments, blockComments: cBlockComments,
        strings: [StringRule(#"""""#, multiline: true), StringRule("\"")], characterLiterals: true,
        atSigil: .meta, capitalizedTypes: true)

    static let kotlin = LanguageDefinition(
        keywords: """
            abstract actual annotation as break by catch class companion const constructor continue crossinline data
            do dynamic else enum expect external field final finally for fun get if import in infix init inline inner
            interface internal is lateinit noinline object open operator out override package private protected public
            reified return sealed set super suspend tailrec this throw try typealias val value var vararg when where
            while
            """,
        literals: "true false null",
        declarations: ["fun": .function, "class": .type, "interface": .type, "object": .type, "typealias": .type],
        lineComments: slashComments, blockComments: nestingBlockComments,
        strings: [
            StringRule(#"""""#, escape: nil, multiline: true, interpolation: Interpolation(code: "${", variables: "$")),
            StringRule("\"", interpolation: Interpolation(code: "${", variables: "$")),
        ],
        characterLiterals: true, atSigil: .meta, capitalizedTypes: true)

    static let scala = LanguageDefinition(
        keywords: """
            abstract case catch class def do else enum export extends extension final finally for forSome given if
            implicit import lazy match new object override package private protected return sealed super then this
            throw trait try type using val var while with yield
            """,
        literals: "true false null",
        declarations: [
            "def": .function, "class": .type, "object": .type, "trait": .type, "type": .type, "enum": .type,
        ],
        lineComments: slashComments, blockComments: nestingBlockComments,
        strings: [StringRule(#"""""#, escape: nil, multiline: true), StringRule("\"")], stringPrefixes: "s f raw",
        characterLiterals: true, atSigil: .meta, capitalizedTypes: true)

    static let dart = LanguageDefinition(
        keywords: """
            abstract as assert async await base break case catch class const continue covariant default deferred do
            dynamic else enum export extends extension external factory final finally for get hide if implements
            import in interface is late library mixin new on operator part required rethrow return sealed set show
            static super switch sync this throw try typedef var when while with yield
            """,
        literals: "true false null", types: "bool double int num void",
        declarations: ["class": .type, "enum": .type, "mixin": .type, "extension": .type, "typedef": .type],
        lineComments: slashComments, blockComments: nestingBlockComments,
        strings: ["'''", #"""""#, "'", "\""].map {
            StringRule($0, multiline: $0.count == 3, interpolation: Interpolation(code: "${", variables: "$"))
        },
        stringPrefixes: "r", atSigil: .meta, capitalizedTypes: true)

    static let go = LanguageDefinition(
        keywords: """
            break case chan const continue default defer else fallthrough for func go goto if import interface map
            package range return select struct switch type var
            """,
        literals: "true false nil iota",
        types: """
            any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string
            uint uint8 uint16 uint32 uint64 uintptr
            """,
        declarations: ["func": .function, "type": .type],
        lineComments: slashComments, blockComments: cBlockComments,
        strings: [StringRule("\""), StringRule("`", escape: nil, multiline: true)], characterLiterals: true)

    static let rust = LanguageDefinition(
        keywords: """
            as async await break const continue crate dyn else enum extern fn for if impl in let loop macro_rules
            match mod move mut pub ref return self Self static struct super trait type union unsafe use where while
            yield
            """,
        literals: "true false",
        types: "bool char f32 f64 i8 i16 i32 i64 i128 isize str u8 u16 u32 u64 u128 usize",
        declarations: ["fn": .function, "struct": .type, "enum": .type, "trait": .type, "type": .type, "union": .type],
        lineComments: slashComments, blockComments: nestingBlockComments, strings: [StringRule("\"", multiline: true)],
        stringPrefixes: "b c",
        rawStrings: .hashed(prefixes: ["r", "br", "cr"].map { Array($0.utf8) }, minimumHashes: 0),
        characterLiterals: true, directives: .attributes, bangMacros: true, capitalizedTypes: true)

    static let swift = LanguageDefinition(
        keywords: """
            actor any associatedtype async await borrowing break case catch class consume consuming continue
            convenience default defer deinit didSet do dynamic else enum extension fallthrough fileprivate final for
            func get guard if import in indirect infix init inout internal is isolated lazy let macro mutating
            nonisolated nonmutating open operator optional override package postfix precedencegroup prefix private
            protocol public repeat required rethrows return self Self sending set some static struct subscript super
            switch throw throws try typealias unowned var weak where while willSet
            """,
        literals: "true false nil",
        declarations: [
            "func": .function, "class": .type, "struct": .type, "enum": .type, "protocol": .type, "actor": .type,
            "extension": .type, "typealias": .type, "associatedtype": .type,
        ],
        lineComments: slashComments, blockComments: nestingBlockComments,
        strings: [
            StringRule(#"""""#, multiline: true, interpolation: Interpolation(code: "\\(")),
            StringRule("\"", interpolation: Interpolation(code: "\\(")),
        ],
        rawStrings: .hashed(prefixes: [[]], minimumHashes: 1), directives: .hashWords, atSigil: .meta,
        capitalizedTypes: true)

    static let zig = LanguageDefinition(
        keywords: """
            addrspace align allowzero and anyframe anytype asm async await break callconv catch comptime const continue
            defer else enum errdefer error export extern fn for if inline linksection noalias noinline nosuspend opaque
            or orelse packed pub resume return struct suspend switch test threadlocal try union unreachable
            usingnamespace var volatile while
            """,
        literals: "true false null undefined",
        types: """
            bool void noreturn type anyerror anyopaque comptime_int comptime_float isize usize i8 i16 i32 i64 i128 u8
            u16 u32 u64 u128 f16 f32 f64 f80 f128 c_int c_uint c_long c_ulong c_char
            """,
        declarations: ["fn": .function], lineComments: slashComments, strings: [StringRule("\"")],
        characterLiterals: true, atSigil: .function, capitalizedTypes: true)

    static let javascript = LanguageDefinition(
        keywords: """
            async await break case catch class const continue debugger default delete do else export extends finally
            for from function get if import in instanceof let new of return set static super switch this throw try
            typeof var void while with yield
            """,
        literals: "true false null undefined NaN Infinity",
        declarations: ["function": .function, "class": .type], identifierStarts: "$", identifierContinues: "$",
        lineComments: slashComments, blockComments: cBlockComments,
        strings: quotedStrings + [StringRule("`", multiline: true, interpolation: Interpolation(code: "${"))],
        regexLiterals: true, atSigil: .meta, capitalizedTypes: true)

    static let typescript = javascript.adding(
        keywords: """
            abstract accessor as asserts declare enum implements infer interface is keyof module namespace out override
            private protected public readonly satisfies type unique
            """,
        types: "any bigint boolean never number object string symbol unknown",
        declarations: ["interface": .type, "enum": .type, "type": .type, "namespace": .type])

    static let protobuf = LanguageDefinition(
        keywords: """
            syntax edition package import option message enum service rpc returns stream repeated optional required
            oneof map reserved extend extensions to max public weak
            """,
        literals: "true false",
        types: """
            double float int32 int64 uint32 uint64 sint32 sint64 fixed32 fixed64 sfixed32 sfixed64 bool string bytes
            """,
        declarations: ["message": .type, "enum": .type, "service": .type, "rpc": .function],
        lineComments: slashComments, blockComments: cBlockComments, strings: quotedStrings, capitalizedTypes: true)
}
