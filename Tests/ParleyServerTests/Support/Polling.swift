/// Waits until `condition` holds, checking it every `interval`, for at most `timeout`; returns whether it held. For
/// state that changes on another thread or in another process and has no event a test could await (a counter, a
/// socket seen closed, a row written); the caller asserts on the result, or on what it reads afterwards.
func poll(
    within timeout: Duration = .seconds(10), every interval: Duration = .milliseconds(20),
    until condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !(try await condition()) {
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(for: interval)
    }
    return true
}

extension APIClient {
    /// The conversation's last message (nil when it has none) once `condition` holds for it, polled for at most
    /// `timeout`; else the last one read, for the caller to check. For a reply whose end the test has no stream to see.
    func lastMessage(
        of conversation: Int64, within timeout: Duration = .seconds(10),
        once condition: ([String: Any]?) -> Bool
    ) async throws -> [String: Any]? {
        var last: [String: Any]?
        _ = try await poll(within: timeout) {
            last = try await messages(conversation).last
            return condition(last)
        }
        return last
    }
}

extension TestServer {
    /// Polls the gauge `name` of `/metrics` every `interval` until it reads `value`, for at most `timeout`; returns the
    /// last reading.
    @discardableResult
    func waitForGauge(
        _ name: String, toBe value: Int, within timeout: Duration = .seconds(10),
        every interval: Duration = .milliseconds(20)
    ) async throws -> Int? {
        var current: Int?
        _ = try await poll(within: timeout, every: interval) {
            current = try await gauge(name)
            return current == value
        }
        return current
    }
}
