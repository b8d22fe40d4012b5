/// Who may create an account through the sign-up page.
public enum SignupMode: String, Sendable {
    /// Anyone; the first account becomes admin.
    case open
    /// Only the first account (which becomes admin).
    case firstUser = "first-user"
    /// Nobody; accounts come from `parley user create`.
    case closed
}
