import ArgumentParser
import Foundation
import Logging
import ParleyCore
import ParleyPostgres
import ParleyServer
import ParleyStore

/// `parley user`: account management from the shell.
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "Manage accounts.",
        subcommands: [CreateUser.self])
}

/// `parley user create --email E [--admin]`, with the password read from standard input.
struct CreateUser: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create an account; the password is read from standard input.")

    @Option(help: "The account's email address.") var email: String
    @Flag(help: "Make the account an admin.") var admin = false
    @Option(help: "The folder holding parley.sqlite (PARLEY_DATA_DIR); unused with PARLEY_DATABASE_URL.")
    var dataDir: String?

    func run() async throws {
        let settings = try ServerSettings(environment: ProcessInfo.processInfo.environment)
        let password = PasswordPrompt.read(prompt: "Password for \(email): ")
        if let problem = AccountRules.passwordProblem(password) { throw ValidationError(problem) }
        let hash = try await PasswordHasher(cost: settings.bcryptCost).hash(password)
        let user: User
        do {
            if let url = settings.databaseURL {
                var logger = Logger(label: "parley")
                logger.logLevel = settings.logLevel
                user = try await PostgresStorage.withRunning(try PostgresLocation(url: url), logger: logger) {
                    try await PostgresAccountStore(database: $0).createUser(
                        email: email, passwordHash: hash, isAdmin: admin)
                }
            } else {
                let database = try ParleyDatabase(directory: dataDir ?? settings.dataDirectory)
                user = try await SQLiteAccountStore(database: database).createUser(
                    email: email, passwordHash: hash, isAdmin: admin)
            }
        } catch StoreError.duplicate {
            throw ValidationError("An account with the email \(email) exists already.")
        }
        print("Created \(user.isAdmin ? "admin " : "")account \(user.email) (id \(user.id)).")
    }
}
