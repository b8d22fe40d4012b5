import ParleyCore

extension StoreSet {
    /// The stores of a PostgreSQL database, with the relay and the throttles' ledger of the instances sharing it.
    public init(postgres storage: PostgresStorage) {
        let accounts = PostgresAccountStore(database: storage)
        self.init(
            accounts: accounts, chat: PostgresChatStore(database: storage),
            apiCompletions: PostgresAPICompletionStore(database: storage),
            apiKeys: PostgresAPIKeyStore(database: storage), shares: PostgresShareStore(database: storage),
            documents: PostgresDocumentStore(database: storage), knowledge: PostgresKnowledgeStore(database: storage),
            assistants: PostgresAssistantStore(database: storage), prompts: PostgresPromptStore(database: storage),
            groups: PostgresGroupStore(database: storage), usage: PostgresUsageStore(database: storage),
            toolChoices: PostgresToolChoiceStore(database: storage), database: storage,
            relay: PostgresReplyRelay(storage: storage), throttles: PostgresThrottleLedger(storage: storage))
    }
}
