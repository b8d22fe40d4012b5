import Foundation

/// What `mock-tools` answers, decided from its request's `ToolTurns`:
/// - its last user message's lines `call <tool> <json arguments>` (arguments `{}` when left out, or not a JSON
///   object) ask for those calls, in parallel when several, even of a tool not offered; `call none` answers at once;
/// - when the latest turn carries results, it answers `The tool said: <result>` (several joined by `; `), unless the
///   message also has a line `always call`, which asks for its calls again (for step limits);
/// - otherwise, when tools are offered, it calls the first whose name ends with `add` (else the first) with
///   `{"a":2,"b":3}`;
/// - otherwise it answers as `mock-fast`.
struct MockToolReply: Sendable, Equatable {
    /// A call the reply asks for: `call_<round>_<position>` for an id (Gemini's wire sends none), the round counting
    /// the request's earlier turns that asked for calls.
    struct Call: Sendable, Equatable {
        var id: String
        var name: String
        var arguments: String

        /// The arguments in pieces of at most four characters, as vendors stream them.
        var argumentPieces: [String] {
            stride(from: 0, to: arguments.count, by: 4).map { start in
                String(arguments.dropFirst(start).prefix(4))
            }
        }
    }

    /// The reply's text tokens (none when it calls).
    var chunks: [String]
    /// The calls it asks for after its text.
    var calls: [Call]

    /// The arguments asked of the offered tool when the message names none.
    static let defaultArguments = #"{"a":2,"b":3}"#

    /// The reply to `turns`; a text answer has `tokens` tokens.
    init(to turns: ToolTurns, tokens: Int) {
        let lines = turns.question.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        let commands = lines.filter { $0.hasPrefix("call ") }.map {
            $0.dropFirst(5).trimmingCharacters(in: .whitespaces)
        }
        var calls = commands.filter { $0 != "none" }.enumerated().map {
            Self.call($1, id: "call_\(turns.rounds)_\($0)")
        }
        if commands.isEmpty, let tool = turns.offered.first(where: { $0.hasSuffix("add") }) ?? turns.offered.first {
            calls = [Call(id: "call_\(turns.rounds)_0", name: tool, arguments: Self.defaultArguments)]
        }
        if !turns.results.isEmpty, !lines.contains("always call") || calls.isEmpty {
            self.init(text: "The tool said: " + turns.results.joined(separator: "; "))
        } else if commands.contains("none") || calls.isEmpty {
            self.init(chunks: MockReply.chunks(model: MockFault.fast.rawValue, tokens: tokens), calls: [])
        } else {
            self.init(chunks: [], calls: calls)
        }
    }

    /// A reply of `chunks` then `calls`.
    init(chunks: [String], calls: [Call]) {
        self.chunks = chunks
        self.calls = calls
    }

    /// A text reply streamed a word a token.
    private init(text: String) {
        let words = text.split(separator: " ", omittingEmptySubsequences: false)
        self.init(chunks: words.enumerated().map { $0.offset == 0 ? String($0.element) : " " + $0.element }, calls: [])
    }

    /// The call a `call` line asks for (its tool's name, then its arguments), with `id`.
    private static func call(_ command: String, id: String) -> Call {
        let name = String(command.prefix { !$0.isWhitespace })
        let rest = command.dropFirst(name.count).trimmingCharacters(in: .whitespaces)
        let isObject = (try? JSONSerialization.jsonObject(with: Data(rest.utf8))) is [String: Any]
        return Call(id: id, name: name, arguments: isObject ? rest : "{}")
    }
}
