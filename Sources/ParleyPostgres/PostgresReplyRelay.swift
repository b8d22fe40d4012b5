import Foundation
import Logging
import ParleyCore
import PostgresNIO
import Synchronization

/// The relay between instances sharing a PostgreSQL database: what each publishes goes out as `NOTIFY` on one channel
/// (`RelayWire`), many records a notification, and every instance `LISTEN`s there on a connection of its own, so that
/// each keeps the logs of every reply. It also renews this instance's leases every second and marks `interrupted` the
/// replies whose instance let theirs run out (`PostgresLeases`), sending their `done`.
public final class PostgresReplyRelay: ReplyRelay {
    private let client: PostgresClient
    private let logger: Logger
    private let instanceID: UUID
    /// Records published and not yet sent, in order.
    private let outbox = Mutex<[RelayWire.Record]>([])
    /// Wakes the sender when the outbox fills.
    private let outboxFilled: AsyncStream<Void>.Continuation
    private let outboxSignal: AsyncStream<Void>
    /// The number of the last payload sent.
    private let sentPayloads = Atomic<Int64>(0)
    /// How often leases are renewed and run-out ones looked for.
    private let leaseInterval: Duration

    /// A relay over `storage`'s pool, for the instance that owns its leases.
    public init(storage: PostgresStorage, leaseInterval: Duration = .seconds(1)) {
        client = storage.client
        logger = storage.logger
        instanceID = storage.instanceID
        self.leaseInterval = leaseInterval
        (outboxSignal, outboxFilled) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    public func publish(_ event: RelayedEvent) {
        send(.event(event))
    }

    public func publishTitle(_ frame: String, conversationID: ConversationID) {
        send(.title(conversationID, frame: frame))
    }

    public func requestStop(_ conversationID: ConversationID) {
        send(.stop(conversationID))
    }

    public func requestDecision(_ conversationID: ConversationID, callID: String, allow: Bool) {
        send(.decision(conversationID, callID: callID, allow: allow))
    }

    public func run(delivering deliver: @escaping @Sendable (RelayMessage) -> Void) async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.sendOutbox() }
            group.addTask { await self.listen(delivering: deliver) }
            group.addTask { await self.keepLeases(delivering: deliver) }
        }
    }

    /// Queues a record for the sender.
    private func send(_ record: RelayWire.Record) {
        outbox.withLock { $0.append(record) }
        outboxFilled.yield()
    }

    // MARK: Sending

    /// Sends the outbox's records each time it fills, until cancelled; then once more, uncancelled, for the `done`s of
    /// the replies a shutdown ended.
    private func sendOutbox() async {
        for await _ in outboxSignal {
            await sendQueued()
        }
        await Task { await self.sendQueued() }.value
    }

    /// Sends what the outbox holds, as few notifications as fit it, in one statement; a record too long for a
    /// notification is stored first and notified by its row.
    private func sendQueued() async {
        let records = outbox.withLock { outbox in
            defer { outbox.removeAll(keepingCapacity: true) }
            return outbox
        }
        guard !records.isEmpty else { return }
        do {
            var payloads: [String] = []
            for body in RelayWire.bodies(records) {
                let number = sentPayloads.add(1, ordering: .relaxed).newValue
                let header = RelayWire.header(sender: instanceID, number: number)
                if header.utf8.count + body.count <= RelayWire.notificationLimit {
                    payloads.append(header + String(decoding: body, as: UTF8.self))
                } else {
                    let text = String(decoding: body, as: UTF8.self)
                    let id =
                        try await client.query(
                            "INSERT INTO relay_payloads (payload) VALUES (\(text)) RETURNING id", logger: logger
                        ).rows().first?["id"].decode(Int64.self) ?? 0
                    payloads.append(header + "@\(id)")
                }
            }
            try await client.query(
                """
                SELECT pg_notify(\(RelayWire.channel), p) FROM unnest(\(payloads)::text[]) WITH ORDINALITY AS t(p, n)
                ORDER BY n
                """, logger: logger)
            RelayMetrics.sent(records, notifications: payloads.count)
        } catch {
            // The other instances notice the missing numbers and treat their logs of this one's replies as gapped.
            logger.error("relaying events failed", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    // MARK: Listening

    /// Listens on the channel until cancelled, on a connection of its own, connecting again a second after a failure
    /// (and telling the engine that messages may have been missed meanwhile).
    private func listen(delivering deliver: @escaping @Sendable (RelayMessage) -> Void) async {
        var reconnecting = false
        while !Task.isCancelled {
            var heard: [UUID: Int64] = [:]
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: RelayWire.channel) { notifications in
                        if reconnecting {
                            RelayMetrics.missed()
                            deliver(.mayHaveMissed)
                        }
                        for try await notification in notifications {
                            try await self.receive(notification.payload, heard: &heard, delivering: deliver)
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.error("listening to other instances failed", metadata: ["error": "\(String(reflecting: error))"])
            }
            reconnecting = true
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Acts on one notification: another instance's records, read from their row when stored, go to `deliver`; a
    /// payload numbered past the next one expected from its sender means some were lost.
    private func receive(
        _ text: String, heard: inout [UUID: Int64], delivering deliver: @Sendable (RelayMessage) -> Void
    ) async throws {
        guard let payload = RelayWire.payload(text), payload.sender != instanceID else { return }
        if let last = heard[payload.sender], payload.number != last + 1 {
            RelayMetrics.missed()
            deliver(.mayHaveMissed)
        }
        heard[payload.sender] = payload.number
        let body: [UInt8]
        switch payload.body {
        case .records(let records):
            body = records
        case .stored(let id):
            guard
                let stored = try await client.query(
                    "SELECT payload FROM relay_payloads WHERE id = \(id)", logger: logger
                ).rows().first?["payload"].decode(String.self)
            else {
                deliver(.mayHaveMissed)
                return
            }
            body = Array(stored.utf8)
        }
        guard let records = RelayWire.records(body) else {
            logger.warning("ignored a relay payload that is not made of records")
            return
        }
        RelayMetrics.received(records)
        for record in records { deliver(record.message) }
    }

    // MARK: Leases

    /// Every `leaseInterval` until cancelled: renews this instance's leases, marks `interrupted` the replies whose
    /// lease ran out and sends their `done` (here and to the other instances), drops stored payloads older than a
    /// minute, and folds the changes of stored bytes and of usage.
    private func keepLeases(delivering deliver: @escaping @Sendable (RelayMessage) -> Void) async {
        while !Task.isCancelled {
            do {
                try await PostgresLeases.renew(for: instanceID, client: client, logger: logger)
                let interrupted = try await client.withTransaction(logger: logger) { connection in
                    try await PostgresLeases.interruptUnleased(on: connection, logger: logger)
                }
                for message in interrupted {
                    let done = RelayedEvent(
                        StreamEvent.done(for: message),
                        id: EventID(messageID: message.id, sequence: EventID.doneSequence),
                        conversationID: message.conversationID)
                    deliver(.event(done))
                    publish(done)
                }
                if !interrupted.isEmpty {
                    logger.notice(
                        "marked replies interrupted whose instance stopped", metadata: ["count": "\(interrupted.count)"]
                    )
                }
                try await client.query(
                    "DELETE FROM relay_payloads WHERE created_at < now() - interval '1 minute'", logger: logger)
                try await PostgresStoredBytes.fold(client: client, logger: logger)
                try await PostgresUsageLedger.fold(client: client, logger: logger)
            } catch {
                // Cancelled: the instance is stopping, and its leases with it.
                if Task.isCancelled { return }
                logger.error("keeping leases failed", metadata: ["error": "\(String(reflecting: error))"])
            }
            try? await Task.sleep(for: leaseInterval)
        }
    }
}
