/// A `PARLEY_CONFIG` file Parley cannot use; its message names the file and the problem, so the server can stop
/// at start-up with it.
public struct ProviderConfigError: Error, Equatable, CustomStringConvertible {
    /// The file's path.
    public var file: String
    /// What is wrong, with the place in the file (for example `providers[1].kind: unknown kind “foo” …`).
    public var problem: String

    /// Creates an error.
    public init(file: String, problem: String) {
        self.file = file
        self.problem = problem
    }

    public var description: String { "PARLEY_CONFIG file \(file): \(problem)" }
}
