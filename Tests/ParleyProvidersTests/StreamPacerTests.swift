import Testing

@testable import MockUpstream

/// The mock's shared timer: sleepers wake at their instants, never before, and leave at once when cancelled or when it
/// stops.
@Suite(.timeLimit(.minutes(1))) struct StreamPacerTests {
    /// Runs `body` with a ticking pacer, then stops it.
    private func withPacer(_ body: (StreamPacer) async throws -> Void) async throws {
        let pacer = StreamPacer()
        let ticking = Task { await pacer.run() }
        defer { ticking.cancel() }
        try await body(pacer)
    }

    @Test("every sleeper wakes, none before its instant")
    func sleepersWakeAtTheirInstants() async throws {
        try await withPacer { pacer in
            let start = ContinuousClock.now
            let woken = try await withThrowingTaskGroup(of: (offset: Int, at: ContinuousClock.Instant).self) { group in
                for offset in [60, 20, 40, 0, 20] {
                    group.addTask {
                        try await pacer.sleep(until: start + .milliseconds(offset))
                        return (offset, .now)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(woken.map(\.offset).sorted() == [0, 20, 20, 40, 60])
            for wake in woken {
                #expect(
                    wake.at >= start + .milliseconds(wake.offset),
                    "woke \(start.duration(to: wake.at)) for \(wake.offset) ms")
            }
        }
    }

    @Test("a thousand streams due at the same instant all wake")
    func manySleepersAtOneInstantAllWake() async throws {
        try await withPacer { pacer in
            let due = ContinuousClock.now + .milliseconds(30)
            let woken = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<1_000 {
                    group.addTask {
                        try await pacer.sleep(until: due)
                        return 1
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(woken == 1_000)
            #expect(ContinuousClock.now >= due)
        }
    }

    @Test("a cancelled sleeper leaves at once with CancellationError; the others still wake")
    func cancelledSleeperLeavesAtOnce() async throws {
        try await withPacer { pacer in
            // `Task.immediate` runs each task on this thread until it suspends, in the pacer: both sleep there now.
            let farAway = Task.immediate { try await pacer.sleep(until: .now + .seconds(3600)) }
            let near = Task.immediate { try await pacer.sleep(until: .now + .milliseconds(20)) }
            farAway.cancel()
            await #expect(throws: CancellationError.self) { try await farAway.value }
            try await near.value
            // Cancelled before it sleeps: it does not wait either.
            let cancelledFirst = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                try await pacer.sleep(until: .now + .seconds(3600))
            }
            await #expect(throws: CancellationError.self) { try await cancelledFirst.value }
        }
    }

    @Test("when the pacer stops, its sleepers and later ones get CancellationError")
    func stoppingWakesEverySleeper() async throws {
        let pacer = StreamPacer()
        let ticking = Task { await pacer.run() }
        // Run on this thread until it suspends in the pacer (`Task.immediate`): it sleeps there before the pacer stops.
        let sleeper = Task.immediate { try await pacer.sleep(until: .now + .seconds(3600)) }
        ticking.cancel()
        await ticking.value
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        await #expect(throws: CancellationError.self) { try await pacer.sleep(until: .now + .milliseconds(1)) }
    }
}
