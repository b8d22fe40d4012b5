import Foundation
import Logging

/// Turns a verified single sign-on identity into a Parley account: the linked one, else the account with the same
/// email when the provider has verified it (linked now), else a new one (named as the provider names the person)
/// when sign-up allows; then copies the
/// provider's groups and, when admin groups are configured, grants or removes admin by them.
public struct SingleSignOnAccounts: Sendable {
    let store: any SingleSignOnStore
    let signupMode: SignupMode
    /// The provider groups whose members are admins; empty: single sign-on leaves admin alone.
    let adminGroups: Set<String>
    let logger: Logger

    /// Creates the service.
    public init(store: any SingleSignOnStore, signupMode: SignupMode, adminGroups: Set<String>, logger: Logger) {
        self.store = store
        self.signupMode = signupMode
        self.adminGroups = adminGroups
        self.logger = logger
    }

    /// The account this identity signs in to, with its groups and admin brought up to date.
    public func signIn(_ identity: SingleSignOnIdentity) async throws(SingleSignOnError) -> User {
        var user = try await account(for: identity)
        guard !user.isDisabled else { throw .disabled }
        let groups = Self.groupNames(identity.groups)
        try await storing { try await store.setSSOGroups(groups, userID: user.id) }
        if !adminGroups.isEmpty {
            let isAdmin = groups.contains { group in
                adminGroups.contains { $0.caseInsensitiveCompare(group) == .orderedSame }
            }
            if isAdmin != user.isAdmin {
                try await storing { try await store.setAdmin(isAdmin, userID: user.id) }
                logger.notice(
                    "admin changed by single sign-on groups",
                    metadata: ["user": "\(user.id)", "admin": "\(isAdmin)"])
                user.isAdmin = isAdmin
            }
        }
        return user
    }

    /// The linked account, the verified email's account (linking it), or a new one.
    private func account(for identity: SingleSignOnIdentity) async throws(SingleSignOnError) -> User {
        if let linked = try await storing({ try await store.user(ssoSubject: identity.subject) }) { return linked }
        guard let email = identity.email?.trimmingCharacters(in: .whitespaces),
            AccountRules.emailProblem(email) == nil, !email.unicodeScalars.contains("\0")
        else { throw .noEmail }
        if var existing = try await storing({ try await store.user(email: email) }) {
            guard existing.ssoSubject == nil else { throw .linkedElsewhere }
            guard identity.emailVerified else { throw .unverifiedEmail }
            try await storing { try await store.linkSSOSubject(identity.subject, userID: existing.id) }
            existing.ssoSubject = identity.subject
            logger.notice("account linked to single sign-on", metadata: ["user": "\(existing.id)"])
            return existing
        }
        let allowWhenUsersExist: Bool
        switch signupMode {
        case .open, .sso: allowWhenUsersExist = true
        case .firstUser: allowWhenUsersExist = false
        case .closed: throw .signupClosed
        }
        do {
            var user = try await store.createSSOUser(
                email: email, subject: identity.subject, allowWhenUsersExist: allowWhenUsersExist)
            if let name = identity.name?.trimmingCharacters(in: .whitespacesAndNewlines),
                AccountRules.displayNameProblem(name) == nil
            {
                try await store.setDisplayName(name, userID: user.id)
                user.displayName = name
            }
            return user
        } catch {
            switch error {
            case .signupClosed: throw .signupClosed
            // Another sign-in took the email or the subject a moment ago.
            case .duplicate: throw .linkedElsewhere
            default: throw failure(error)
            }
        }
    }

    /// The provider's group names as Parley keeps them: trimmed, without empty or control-character names, one of
    /// each (ignoring case), at most `maxGroups` of at most `maxGroupNameLength` characters.
    static func groupNames(_ names: [String]) -> [String] {
        var seen: Set<String> = []
        var kept: [String] = []
        for name in names {
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, trimmed.count <= maxGroupNameLength,
                !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
                seen.insert(trimmed.lowercased()).inserted
            else { continue }
            kept.append(trimmed)
            if kept.count == maxGroups { break }
        }
        return kept
    }

    /// The most provider groups one account keeps.
    static let maxGroups = 200
    /// The longest provider group name kept.
    static let maxGroupNameLength = 200

    /// Runs a storage step, logging its failure as `.failed`.
    private func storing<T>(_ step: () async throws -> T) async throws(SingleSignOnError) -> T {
        do {
            return try await step()
        } catch {
            throw failure(error)
        }
    }

    private func failure(_ error: any Error) -> SingleSignOnError {
        logger.error("a single sign-on step failed", metadata: ["error": "\(error)"])
        return .failed
    }
}
