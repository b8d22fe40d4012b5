import ParleyJSON

/// Counters served by `GET /stats`, plus the `mock-429` turn counter; `POST /stats/reset` zeroes them all.
actor MockStats {
    /// How a stream ended.
    enum Outcome: Sendable {
        /// Every event was sent.
        case completed
        /// The client closed the connection before the end.
        case aborted
        /// The simulator dropped the connection on purpose (`mock-reset`).
        case dropped
    }

    private var requests = 0
    private var open = 0
    private var completed = 0
    private var aborted = 0
    private var lastRequest: String?
    private var lastToolResults: [String]?
    private var rateLimitedRequests = 0
    private var modelListRequests = 0

    /// Counts a chat request and remembers its body (nil when it was not JSON).
    func received(body: String?) {
        requests += 1
        lastRequest = body
    }

    /// Remembers the tool results a `mock-tools` request carried back (`ToolTurns.results`).
    func receivedToolResults(_ results: [String]) {
        lastToolResults = results
    }

    /// Counts a `GET /v1/models`.
    func listedModels() {
        modelListRequests += 1
    }

    /// Counts a `mock-429` request and says whether it must be refused (the 1st, 3rd, 5th...).
    func takeRateLimitTurn() -> Bool {
        rateLimitedRequests += 1
        return rateLimitedRequests % 2 == 1
    }

    /// Counts a non-streaming reply sent in full.
    func answered() {
        completed += 1
    }

    /// Counts a stream that starts sending.
    func streamOpened() {
        open += 1
    }

    /// Counts a stream that ended with `outcome`.
    func streamClosed(_ outcome: Outcome) {
        open -= 1
        switch outcome {
        case .completed: completed += 1
        case .aborted: aborted += 1
        case .dropped: break
        }
    }

    /// Zeroes every counter and forgets the last request.
    func reset() {
        (requests, open, completed, aborted, rateLimitedRequests, modelListRequests) = (0, 0, 0, 0, 0, 0)
        lastRequest = nil
        lastToolResults = nil
    }

    /// The `/stats` JSON object; `last_request` is embedded as a JSON value, and `last_tool_results` lists the results
    /// the last `mock-tools` request carried (null before one).
    func json() -> String {
        let toolResults = lastToolResults.map { "[" + $0.map(JSONText.quoted).joined(separator: ",") + "]" } ?? "null"
        return #"{"requests":\#(requests),"open":\#(open),"completed":\#(completed),"aborted":\#(aborted),"#
            + #""model_list_requests":\#(modelListRequests),"last_request":\#(lastRequest ?? "null"),"#
            + #""last_tool_results":\#(toolResults)}"#
    }
}
