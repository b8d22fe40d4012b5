import ArgumentParser
import Foundation
import ParleyCore
import ParleyServer
import ParleyStore

/// `parley-dev usage-fixture`: fills a database with a synthetic history of usage, to measure the admin dashboard.
struct UsageFixtureCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "usage-fixture", abstract: "Fill a database with synthetic usage history (for benchmarks).",
        discussion:
            "Writes users fixture-user-NNNNN@example.com (who cannot sign in), conversations of 10 messages whose replies are charged at versioned prices, and the daily rollup. Use a new data folder; create an admin with `parley user create --admin` to look at it."
    )

    @Option(help: "The folder holding parley.sqlite (PARLEY_DATA_DIR).") var dataDir: String?
    @Option(help: "How many users.") var users = 1_000
    @Option(help: "How many days of history, ending now.") var days = 365
    @Option(help: "How many messages (questions and replies).") var messages = 1_000_000
    @Option(help: "The random seed; the same seed writes the same data.") var seed: UInt64 = 42

    func run() async throws {
        let settings = try ServerSettings(environment: ProcessInfo.processInfo.environment)
        let directory = dataDir ?? settings.dataDirectory
        let database = try ParleyDatabase(directory: directory)
        let started = ContinuousClock.now
        let summary = try await UsageFixture(users: users, days: days, messages: messages, seed: seed).write(
            to: database)
        try database.close()
        print(
            "Wrote \(summary.users) users, \(summary.conversations) conversations, \(summary.messages) messages and "
                + "\(summary.rollupRows) rollup rows (total $\(MicroDollars.decimal(summary.costMicros))) to \(directory) "
                + "in \(started.duration(to: .now).formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1))))."
        )
    }
}
