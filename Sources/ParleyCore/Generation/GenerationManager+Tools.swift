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
            guard case .completed = end, reply.asksForTools else { return end }
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

    /// Runs the calls at once, each announced by a `tool_call` event and answered by a `tool_result` event, and
    /// returns their results in the calls' order; a call the reply's Stop cut short is `stopped`.
    func runTools(_ calls: [ToolCall], for reply: ReplyRun) async -> [ToolResult] {
        let messageID = reply.job.assistantMessageID
        let first = reply.addToolSteps(calls.map { ToolStep(call: $0, status: .running) })
        for call in calls {
            reply.publish(.toolCall(messageID: messageID, call: call, awaitingConfirmation: false), to: hub)
        }
        guard let tools else {
            return calls.map {
                ToolResult(callID: $0.id, name: $0.name, content: "No tools are set up.", isError: true)
            }
        }
        var results = [ToolResult?](repeating: nil, count: calls.count)
        await withTaskGroup(of: (Int, ToolResult).self) { group in
            for (index, call) in calls.enumerated() {
                group.addTask { (index, await tools.call(call)) }
            }
            for await (index, result) in group {
                results[index] = result
                let stopped = Task.isCancelled
                reply.updateToolStep(at: first + index) { step in
                    step.status = stopped ? .stopped : .done
                    step.result = result
                }
                if !stopped {
                    reply.publish(
                        .toolResult(
                            messageID: messageID, callID: result.callID, ok: !result.isError,
                            summary: ToolStep(call: calls[index], status: .done, result: result).summary),
                        to: hub)
                }
            }
        }
        return zip(calls, results).map { call, result in
            result ?? ToolResult(callID: call.id, name: call.name, content: "Stopped.", isError: true)
        }
    }
}
