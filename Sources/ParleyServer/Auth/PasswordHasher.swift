import HummingbirdBcrypt
import NIOPosix
import ParleyCore

/// Hashes and checks passwords with bcrypt on the thread pool, off the request's executor.
public struct PasswordHasher: PasswordHashing {
    let cost: UInt8
    /// A hash at `cost` of a random password, checked when the email is unknown, so that a wrong email takes as long
    /// as a wrong password.
    private let decoy: String

    /// Creates a hasher with the given bcrypt cost (hashing its decoy once, which takes one password check's time).
    public init(cost: UInt8) {
        self.cost = cost
        decoy = Bcrypt.hash(RandomToken.make(), cost: cost)
    }

    /// The bcrypt hash of a password.
    public func hash(_ password: String) async throws -> String {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    /// Whether the password matches the hash; with no hash, or the no-password mark of a single sign-on account,
    /// checks a decoy and returns false.
    public func verify(_ password: String, hash: String?) async throws -> Bool {
        let usable = hash.filter { $0 != User.noPasswordHash }
        let matches = try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: usable ?? decoy) }
        return usable != nil && matches
    }
}
