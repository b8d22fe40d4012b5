/// What an email address and a new password must be to make an account.
public enum AccountRules {
    /// The shortest password accepted.
    public static let minimumPasswordLength = 8
    /// The longest password accepted, in bytes: bcrypt reads at most 72.
    public static let maximumPasswordBytes = 72

    /// Why an email is not acceptable, or nil.
    public static func emailProblem(_ email: String) -> String? {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        let hasSpaceOrControl = email.unicodeScalars.contains { scalar in
            scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
        }
        guard email.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !hasSpaceOrControl else {
            return "Enter a valid email address."
        }
        return nil
    }

    /// Why a new password is not acceptable, or nil.
    public static func passwordProblem(_ password: String) -> String? {
        if password.count < minimumPasswordLength {
            return "A password needs at least \(minimumPasswordLength) characters."
        }
        if password.utf8.count > maximumPasswordBytes {
            return "A password can have at most \(maximumPasswordBytes) bytes."
        }
        return nil
    }

    /// The longest display name accepted, in characters.
    public static let maximumDisplayNameLength = 80

    /// Why a display name (already trimmed) is not acceptable, or nil: 1 to 80 characters, with no control character
    /// and no invisible format character (a right-to-left override could disguise a name) but the joiners of emoji.
    public static func displayNameProblem(_ name: String) -> String? {
        let hidden = name.unicodeScalars.contains { scalar in
            switch scalar.properties.generalCategory {
            case .control: true
            case .format: scalar != "\u{200C}" && scalar != "\u{200D}"
            default: false
            }
        }
        guard (1...maximumDisplayNameLength).contains(name.count), !hidden else {
            return "A display name needs 1 to \(maximumDisplayNameLength) characters, and no control characters."
        }
        return nil
    }
}
