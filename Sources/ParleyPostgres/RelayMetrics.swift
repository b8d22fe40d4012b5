import Metrics

/// What the relay reports on `/metrics`: the events it sent and received, the notifications that carried them, and the
/// times it found it may have missed some (the logs of other instances' replies became gapped).
enum RelayMetrics {
    /// Records sent in `notifications` notifications.
    static func sent(_ records: [RelayWire.Record], notifications: Int) {
        Counter(label: "parley_relay_events_sent_total").increment(by: events(in: records))
        Counter(label: "parley_relay_notifications_sent_total").increment(by: notifications)
    }

    /// Records received from another instance.
    static func received(_ records: [RelayWire.Record]) {
        Counter(label: "parley_relay_events_received_total").increment(by: events(in: records))
    }

    /// Messages may have been missed.
    static func missed() {
        Counter(label: "parley_relay_missed_total").increment()
    }

    /// How many of the records are events.
    private static func events(in records: [RelayWire.Record]) -> Int {
        records.count { if case .event = $0 { true } else { false } }
    }
}
