import ArgumentParser

/// The `parley` command: the server, account management, the upstream simulator and the usage fixture.
@main
struct ParleyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley",
        abstract: "A self-hosted, multi-user AI chat server.",
        subcommands: [ServeCommand.self, UserCommand.self, BackupCommand.self, MockUpstreamCommand.self,
                      UsageFixtureCommand.self],
        defaultSubcommand: ServeCommand.self)
}
