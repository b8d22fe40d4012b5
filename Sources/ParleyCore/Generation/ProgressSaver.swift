import Logging

/// Saves the text and reasoning running replies received since their last save, in one call to the store (which
/// writes a few dozen replies a transaction), so that a crash loses at most one save interval of any reply.
struct ProgressSaver: Sendable {
    let store: any ChatStore
    let logger: Logger

    /// Saves what each of `replies` received since its last save; a reply whose write failed is saved again next time.
    func save(_ replies: [ReplyRun]) async {
        var contents: [MessageID: ReplyProgress] = [:]
        var saving: [ReplyRun] = []
        for reply in replies {
            if let progress = reply.takeUnsavedProgress() {
                contents[reply.job.assistantMessageID] = progress
                saving.append(reply)
            }
        }
        guard !contents.isEmpty else { return }
        let clock = ContinuousClock()
        do {
            let started = clock.now
            try await store.saveProgress(contents)
            GenerationMetrics.flush(after: started.duration(to: clock.now))
        } catch {
            logger.error("saving partial replies failed", metadata: ["error": "\(error)"])
            for reply in saving { reply.markUnsaved() }
        }
    }
}
