import Foundation
import ParleyCore

/// Parley's export file, which import reads back: each conversation and its messages in the JSON API's own shapes.
struct ExportDocument: Codable {
    /// The value of `format` that marks a Parley export.
    static let formatName = "parley-export"
    /// The version written, and the only one read.
    static let currentVersion = 1

    /// One conversation with its messages, oldest first.
    struct Entry: Codable {
        var conversation: ConversationJSON
        var messages: [MessageJSON]
    }

    /// The account the data belongs to (in a whole-account export only).
    struct Account: Codable {
        var email: String
        var createdAt: Date
    }

    var format: String
    var version: Int
    var exportedAt: Date
    var account: Account?
    var conversations: [Entry]

    /// The export of these transcripts, with the account when it is a whole-account export.
    init(_ transcripts: [ConversationTranscript], account user: User?) {
        format = Self.formatName
        version = Self.currentVersion
        exportedAt = Date()
        account = user.map { Account(email: $0.email, createdAt: $0.createdAt) }
        conversations = transcripts.map {
            Entry(conversation: ConversationJSON($0.conversation), messages: $0.messages.map(MessageJSON.init))
        }
    }
}
