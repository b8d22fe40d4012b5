/// Who may create an account through the sign-up page.
public enum SignupMode: String, Sendable {
    /// Anyone; the first account becomes admin.
    case open
    /// Only the first account (which becomes admin).
    case firstUser = "first-user"
    /// Single sign-on alone: the sign-up page is closed, and a first sign-in through the identity provider creates the
    /// account.
    case sso
    /// Nobody; accounts come from `parley user create` and invites.
    case closed
}
