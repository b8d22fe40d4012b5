import ArgumentParser

/// The `parley-dev` command: tools for tests, benchmarks and demos that the server binary does not carry.
@main
struct DevCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley-dev",
        abstract: "Development tools for Parley: the upstream simulator and the usage fixture.",
        subcommands: [MockUpstreamCommand.self, UsageFixtureCommand.self])
}
