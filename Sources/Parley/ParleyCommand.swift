import ArgumentParser

/// The `parley` command: the server, account management and backups.
@main
struct ParleyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley",
        abstract: "A self-hosted, multi-user AI chat server.",
        subcommands: [ServeCommand.self, UserCommand.self, BackupCommand.self, MigrateCommand.self],
        defaultSubcommand: ServeCommand.self)
}
