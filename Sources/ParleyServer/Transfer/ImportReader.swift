import Foundation
import ParleyCore

/// Reads an imported file, Parley's own export or ChatGPT's `conversations.json`, into transcripts ready to store.
/// A problem anywhere refuses the whole file with a 422 that says where, so nothing is ever imported partially.
enum ImportReader {
    /// The largest file accepted.
    static let maxBytes = 25 * 1024 * 1024
    /// The title of an imported conversation that has none.
    static let untitled = "Imported conversation"
    /// The longest model name accepted.
    static let maxModelLength = 200
    /// The dates accepted: from 1970 to the end of year 9999.
    private static let validDates = Date(timeIntervalSince1970: 0)...Date(timeIntervalSince1970: 253_402_300_799)

    /// The file's conversations; imported messages are `complete`, and models unknown here are kept by name.
    static func transcripts(from data: Data, defaultModel: String) throws(AppError) -> [ConversationTranscript] {
        let transcripts: [ConversationTranscript]
        switch data.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }) {
        case UInt8(ascii: "{"): transcripts = try parleyExport(data)
        case UInt8(ascii: "["): transcripts = try chatGPTExport(data, defaultModel: defaultModel)
        default: throw invalid("The file is neither a Parley export nor ChatGPT's conversations.json.")
        }
        guard !transcripts.isEmpty else { throw invalid("The file holds no conversations.") }
        return transcripts
    }

    private static func parleyExport(_ data: Data) throws(AppError) -> [ConversationTranscript] {
        let document = try decode(
            ExportDocument.self, from: data, decoder: APIEncoding.decoder, what: "a Parley export")
        guard document.format == ExportDocument.formatName, document.version == ExportDocument.currentVersion else {
            throw invalid("The file is not a Parley export of version \(ExportDocument.currentVersion).")
        }
        return try document.conversations.enumerated().map { (index, entry) throws(AppError) in
            let messages = try entry.messages.map { message throws(AppError) -> Message in
                guard let role = MessageRole(rawValue: message.role) else {
                    throw invalid(
                        "Conversation \(index + 1) has a message whose role is not system, user or assistant.")
                }
                guard (message.reasoningMs ?? 0) >= 0 else {
                    throw invalid("Conversation \(index + 1) has a message whose reasoning time is negative.")
                }
                let usage = Usage(
                    promptTokens: message.usage.promptTokens, completionTokens: message.usage.completionTokens,
                    reasoningTokens: message.usage.reasoningTokens ?? 0, costUSD: message.usage.costUsd,
                    estimated: message.usage.estimated)
                // A reasoning time is kept with the reasoning it belongs to, and only then.
                let reasoning = role == .assistant && message.reasoning?.isEmpty == false ? message.reasoning : nil
                return Message(
                    id: message.id, conversationID: 0, role: role, content: message.content, reasoning: reasoning,
                    reasoningMilliseconds: reasoning == nil ? nil : message.reasoningMs, status: .complete,
                    model: message.model, parentID: message.parentId,
                    usage: usage, createdAt: message.createdAt)
            }
            let conversation = entry.conversation
            return try checked(
                Conversation(
                    id: 0, userID: 0, title: conversation.title, model: conversation.model,
                    systemPrompt: conversation.systemPrompt, createdAt: conversation.createdAt,
                    updatedAt: conversation.updatedAt, pinned: conversation.pinned,
                    archived: conversation.archived, currentLeafID: conversation.currentLeafId,
                    options: conversation.settings ?? GenerationOptions()),
                messages, number: index + 1)
        }
    }

    private static func chatGPTExport(_ data: Data, defaultModel: String) throws(AppError) -> [ConversationTranscript] {
        let conversations = try decode(
            [ChatGPTConversation].self, from: data, decoder: JSONDecoder(),
            what: "ChatGPT's conversations.json")
        return try conversations.enumerated().map { (index, conversation) throws(AppError) in
            guard let tree = conversation.tree() else {
                throw invalid("Conversation \(index + 1) is broken: its current_node does not lead back to the root.")
            }
            let model = conversation.defaultModelSlug ?? defaultModel
            let createdAt = date(conversation.createTime ?? tree.messages.first?.message.createTime)
            // Every branch is kept; `text` is only that of user and assistant messages.
            let messages = tree.messages.map { kept -> Message in
                let role: MessageRole = kept.message.author.role == "assistant" ? .assistant : .user
                let author = role == .assistant ? kept.message.metadata?.modelSlug ?? model : model
                return Message(
                    id: kept.number, conversationID: 0, role: role, content: kept.text, status: .complete,
                    model: author, parentID: kept.parent, createdAt: kept.message.createTime.map(date) ?? createdAt)
            }
            return try checked(
                Conversation(
                    id: 0, userID: 0, title: conversation.title ?? "", model: model, systemPrompt: "",
                    createdAt: createdAt,
                    updatedAt: conversation.updateTime.map(date) ?? messages.last?.createdAt ?? createdAt,
                    currentLeafID: tree.current ?? messages.last?.id),
                messages, number: index + 1)
        }
    }

    /// Checks what both formats must satisfy, and tidies the title (trimmed, shortened, or a default one).
    private static func checked(_ conversation: Conversation, _ messages: [Message], number: Int) throws(AppError)
        -> ConversationTranscript
    {
        var conversation = conversation
        let title = conversation.title.trimmingCharacters(in: .whitespacesAndNewlines)
        conversation.title =
            title.isEmpty
            ? untitled
            : title.count > ChatService.maxTitleLength
                ? String(title.prefix(ChatService.maxTitleLength - 1)) + "…" : title
        let models = [conversation.model] + messages.map(\.model)
        guard models.allSatisfy({ !$0.isEmpty && $0.count <= maxModelLength }) else {
            throw invalid(
                "Conversation \(number) names a model that is empty or longer than \(maxModelLength) characters.")
        }
        guard conversation.systemPrompt.count <= ChatService.maxSystemPromptLength else {
            throw invalid(
                "Conversation \(number) has a system prompt longer than \(ChatService.maxSystemPromptLength) characters."
            )
        }
        do throws(ChatError) {
            // Any vendor's widest ranges: the model may be another here, and a value it refuses is its provider's error.
            try conversation.options.validate(for: ModelInfo(id: conversation.model, providerID: ""))
        } catch {
            throw invalid("Conversation \(number) has generation settings out of range: \(error.problem)")
        }
        let dates = [conversation.createdAt, conversation.updatedAt] + messages.map(\.createdAt)
        guard dates.allSatisfy(validDates.contains) else {
            throw invalid("Conversation \(number) has a date before 1970 or after 9999.")
        }
        let usages = messages.map(\.usage)
        guard
            usages.allSatisfy({
                $0.promptTokens >= 0 && $0.completionTokens >= 0 && $0.reasoningTokens >= 0 && $0.costUSD.isFinite
                    && $0.costUSD >= 0
            })
        else {
            throw invalid("Conversation \(number) has a message with negative usage.")
        }
        return ConversationTranscript(conversation: conversation, messages: messages)
    }

    /// Decodes the file, or says where it does not fit the format.
    private static func decode<T: Decodable>(_ type: T.Type, from data: Data, decoder: JSONDecoder, what: String)
        throws(AppError) -> T
    {
        do {
            return try decoder.decode(type, from: data)
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            throw invalid("The file is not valid JSON.")
        } catch let error as DecodingError {
            throw invalid("The file is not \(what): \(problem(error)).")
        } catch {
            throw invalid("The file is not valid JSON.")
        }
    }

    /// Where and why a file did not decode, in words (the path of keys and positions, never the file's text).
    private static func problem(_ error: DecodingError) -> String {
        let (path, reason): ([any CodingKey], String) =
            switch error {
            case .keyNotFound(let key, let context): (context.codingPath + [key], "is missing")
            case .typeMismatch(_, let context), .valueNotFound(_, let context):
                (context.codingPath, "has the wrong type")
            case .dataCorrupted(let context): (context.codingPath, "is not valid")
            @unknown default: ([], "is not valid")
            }
        let location = path.map { $0.intValue.map { String($0 + 1) } ?? $0.stringValue }.joined(separator: " › ")
        return location.isEmpty ? "it \(reason)" : "\(location) \(reason)"
    }

    /// A date from seconds since 1970 (out-of-range values are refused later, by `checked`).
    private static func date(_ seconds: Double?) -> Date {
        Date(timeIntervalSince1970: seconds ?? 0)
    }

    private static func invalid(_ message: String) -> AppError {
        AppError(.unprocessableContent, code: "invalid_import", message: message)
    }
}
