import Metrics

/// What the generation engine reports to swift-metrics (exported by the server at `/metrics`): first-token time and
/// reply duration by model, Parley's own part of the first token, tokens and cost by model, upstream errors by kind,
/// retries, and the time of each save.
public enum GenerationMetrics {
    /// The label of Parley's part of a reply's first token: the time it adds to the provider's.
    public static let addedFirstTokenLabel = "parley_added_first_token_seconds"

    /// Parley's part of the first token of a reply asking `model`: from the request to the request on its way upstream,
    /// plus from the first text's arrival to its `token` event written to a client.
    static func addedToFirstToken(model: String, _ elapsed: Duration) {
        Timer(label: addedFirstTokenLabel, dimensions: [("model", model)]).record(duration: elapsed)
    }

    /// The first text of a reply arrived `elapsed` after it started.
    static func firstToken(model: String, after elapsed: Duration) {
        Timer(label: "parley_time_to_first_token_seconds", dimensions: [("model", model)]).record(duration: elapsed)
    }

    /// A reply ended with `status` after `elapsed`, using `usage`.
    static func replyEnded(model: String, status: MessageStatus, after elapsed: Duration, usage: Usage) {
        Timer(label: "parley_reply_duration_seconds", dimensions: [("model", model), ("status", status.rawValue)])
            .record(duration: elapsed)
        Counter(label: "parley_tokens_total", dimensions: [("model", model), ("kind", "prompt")]).increment(
            by: usage.promptTokens)
        Counter(label: "parley_tokens_total", dimensions: [("model", model), ("kind", "completion")])
            .increment(by: usage.completionTokens)
        FloatingPointCounter(label: "parley_cost_usd_total", dimensions: [("model", model)]).increment(
            by: usage.costUSD)
    }

    /// An upstream request failed with the reason `code` (counted whether or not it is retried).
    static func upstreamError(model: String, code: String) {
        Counter(label: "parley_upstream_errors_total", dimensions: [("model", model), ("kind", code)]).increment()
    }

    /// A failed upstream request is being retried.
    static func retry(model: String) {
        Counter(label: "parley_upstream_retries_total", dimensions: [("model", model)]).increment()
    }

    /// One save of partial replies took `elapsed`.
    static func flush(after elapsed: Duration) {
        Timer(label: "parley_database_flush_seconds").record(duration: elapsed)
    }
}
