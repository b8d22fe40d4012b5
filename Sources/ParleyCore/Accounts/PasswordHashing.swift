/// Hashes and checks passwords, taking a password check's time whether or not there is a hash to check.
public protocol PasswordHashing: Sendable {
    /// The hash of a password.
    func hash(_ password: String) async throws -> String
    /// Whether the password matches the hash; with no hash, checks a decoy and returns false.
    func verify(_ password: String, hash: String?) async throws -> Bool
}
