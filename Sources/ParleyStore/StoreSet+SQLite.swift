import ParleyCore

extension StoreSet {
    /// The stores of an SQLite database.
    public init(sqlite database: ParleyDatabase) {
        let accounts = SQLiteAccountStore(database: database)
        let chat = SQLiteChatStore(database: database)
        self.init(
            accounts: accounts, chat: chat, apiCompletions: chat, apiKeys: SQLiteAPIKeyStore(database: database),
            shares: SQLiteShareStore(database: database), documents: SQLiteDocumentStore(database: database),
            knowledge: SQLiteKnowledgeStore(database: database), assistants: SQLiteAssistantStore(database: database),
            prompts: SQLitePromptStore(database: database), groups: SQLiteGroupStore(database: database),
            usage: SQLiteUsageStore(database: database), toolChoices: SQLiteToolChoiceStore(database: database),
            database: database)
    }
}

extension ParleyDatabase: DatabaseHandle {
    public var waitingWrites: Int { writer.waitingWrites }

    public func release() async -> String? {
        do throws(StoreError) {
            try close()
            return nil
        } catch {
            return "\(error)"
        }
    }
}
