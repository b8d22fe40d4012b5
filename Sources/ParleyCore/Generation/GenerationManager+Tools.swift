/// A reply with tools: a sequence of steps, each a model call followed, when the model asks for tools, by those calls
/// (in parallel) and their results sent back in the next model call, until the model answers without asking, or the
/// step limit makes the last call one without tools.
extension GenerationManager {
    /// Streams the reply's model calls from `first`, running the tools each asks for in between; returns how the last
    /// ended. Stop cancels whichever runs, a model call or the tool calls.
    func streamSteps(_ first: UpstreamAttempt, for reply: ReplyRun) async -> StreamEnd {
        var attempt = first
        var step = 1
        while true {
            let end = await streamStep(attempt, for: reply)
            // Calls asked of a request that offered no tool (the step limit's last) are not run.
            guard case .completed = end, reply.asksForTools, !attempt.request.tools.isEmpty else { return end }
            let (calls, text) = reply.endStep()
            let results = await runTools(calls, for: reply)
            if Task.isCancelled { return .cancelled }
            attempt.request.turns += [
                ChatTurn(role: .assistant, content: text, toolCalls: calls),
                ChatTurn(role: .user, content: "", toolResults: results),
            ]
            step += 1
            // The last step the limit allows answers from what the tools gave, offered no further tool.
            if step >= settings.maxToolSteps { attempt.request.tools = [] }
            let promptTokens = attempt.request.turns.reduce(0) { $0 + ContextWindow.estimatedTokens($1) }
            reply.updateReport { $0.estimatedPromptTokens = promptTokens }
        }
    }

    /// One model call of the reply, with its retries and fallback.
    private func streamStep(_ attempt: UpstreamAttempt, for reply: ReplyRun) async -> StreamEnd {
        switch await streamWithRetries(
            attempt, model: reply.job.model, for: ConversationReply(manager: self, reply: reply))
        {
        case .completed: .completed
        case .failed(let error): .failed(error.reason)
        case .cancelled: .cancelled
        }
    }

    /// How long a call that needs the user's permission waits for it before it is denied.
    static let confirmationWait = Duration.seconds(600)

    /// Runs the calls at once, each announced by a `tool_call` event and answered by a `tool_result` event, and
    /// returns their results in the calls' order. A call of a tool that needs permission first waits for the user's
    /// answer; a denied one, or one left
    /// unanswered for `confirmationWait`, is answered as denied. A call the reply's Stop cut short is `stopped`.
    func runTools(_ calls: [ToolCall], for reply: ReplyRun) async -> [ToolResult] {
        let messageID = reply.job.assistantMessageID
        let asks = calls.map { tools?.needsConfirmation($0.name) ?? false }
        let first = reply.addToolSteps(
            zip(calls, asks).map { ToolStep(call: $0, status: $1 ? .awaiting : .running) })
        // Saved before they are announced and again once they end, so that a page loaded meanwhile shows them (and
        // offers Allow and Deny).
        await saveToolSteps(of: reply)
        for (call, ask) in zip(calls, asks) {
            reply.publish(.toolCall(messageID: messageID, call: call, awaitingConfirmation: ask), to: hub)
        }
        var results = [ToolResult?](repeating: nil, count: calls.count)
        await withTaskGroup(of: (Int, ToolStep).self) { group in
            for (index, call) in calls.enumerated() {
                group.addTask { (index, await self.runTool(call, asking: asks[index], for: reply)) }
            }
            for await (index, step) in group {
                results[index] = step.result
                reply.updateToolStep(at: first + index) { $0 = step }
                if step.status != .stopped { reply.publish(.toolResult(messageID: messageID, step: step), to: hub) }
            }
        }
        // A stopped reply's final save keeps them.
        if !Task.isCancelled { await saveToolSteps(of: reply) }
        return zip(calls, results).map { call, result in
            result ?? ToolResult(callID: call.id, name: call.name, content: "Stopped.", isError: true)
        }
    }

    /// One call: asked of the user first when `asking`, then run; the step as it ended.
    private func runTool(_ call: ToolCall, asking: Bool, for reply: ReplyRun) async -> ToolStep {
        if asking {
            guard await reply.decision(on: call.id, within: Self.confirmationWait) else {
                if Task.isCancelled { return ToolStep(call: call, status: .stopped) }
                let denied = ToolResult(
                    callID: call.id, name: call.name, content: "The user did not allow this call.", isError: true)
                return ToolStep(call: call, status: .denied, result: denied)
            }
            reply.publish(
                .toolCall(messageID: reply.job.assistantMessageID, call: call, awaitingConfirmation: false), to: hub)
        }
        guard let tools else {
            let missing = ToolResult(callID: call.id, name: call.name, content: "No tools are set up.", isError: true)
            return ToolStep(call: call, status: .done, result: missing)
        }
        let result = await tools.call(call)
        return ToolStep(call: call, status: Task.isCancelled ? .stopped : .done, result: result)
    }

    /// Saves the reply's tool steps while it runs; a failure is only logged.
    private func saveToolSteps(of reply: ReplyRun) async {
        do {
            try await store.saveToolSteps(reply.toolSteps, messageID: reply.job.assistantMessageID)
        } catch {
            logger.warning("saving a reply's tool calls failed", metadata: ["error": "\(error)"])
        }
    }

    /// Answers a tool call of the conversation's running reply that waits for the user; returns whether one waited
    /// here, or whether the reply runs on another instance (which the answer is passed to, through the relay).
    public func decide(conversationID: ConversationID, callID: String, allow: Bool) -> Bool {
        guard let reply = hub.runningReply(in: conversationID) else {
            guard hub.runsElsewhere(conversationID) else { return false }
            hub.relay?.requestDecision(conversationID, callID: callID, allow: allow)
            return true
        }
        return reply.decide(callID, allow: allow)
    }
}
