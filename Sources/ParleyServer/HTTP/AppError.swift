import HTTPTypes
import Hummingbird
import ParleyCore

/// An error with the status code, stable code and user-facing message it is shown with.
public struct AppError: Error, Sendable {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    public var headers: HTTPFields = [:]

    /// Creates an error.
    public init(_ status: HTTPResponse.Status, code: String, message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    static let unauthenticated = AppError(.unauthorized, code: "unauthenticated", message: "Please sign in.")
    static let notFound = AppError(.notFound, code: "not_found", message: "There is nothing here.")
    static let csrf = AppError(
        .forbidden, code: "csrf", message: "The form expired or came from another site. Reload the page and try again.")
    static let forbidden = AppError(.forbidden, code: "forbidden", message: "You are not allowed to do that.")
    static let internalError = AppError(
        .internalServerError, code: "internal_error", message: "Something went wrong on our side.")
    static let diskFull = AppError(
        .init(code: 507, reasonPhrase: "Insufficient Storage"), code: "disk_full",
        message: "The server's disk is full, so this was not saved. What was saved before is safe; "
            + "whoever runs this server needs to free some space.")

    /// A 429 asking to wait `wait` seconds (also as `Retry-After`); `message` ends with the wait.
    static func tooManyRequests(code: String, message: String, wait: Int) -> AppError {
        AppError(
            .tooManyRequests, code: code, message: "\(message) Try again in \(wait) seconds.",
            headers: [.retryAfter: String(wait)])
    }

    /// A 413 for what would put the user over their storage quota (nothing was stored).
    static func storageFull(_ status: StorageStatus) -> AppError {
        AppError(
            .contentTooLarge, code: "storage_full",
            message: "This would take your storage past its quota (\(status.summary) used). Nothing was saved. "
                + "Delete conversations or images to make room, or ask an admin for more.")
    }

    /// A 400 for a request that could not be read.
    static func malformed(_ message: String) -> AppError {
        AppError(.badRequest, code: "malformed_request", message: message)
    }

    /// The HTTP error a thrown error is shown as: a refusal or a limit of the caller's, a missing page, a full disk;
    /// nil for a fault of ours, which is a logged 500.
    init?(mapping error: any Error) {
        switch error {
        case let error as AppError: self = error
        case ChatError.storage, ShareError.storage, AccountError.failed, PromptError.storage, KnowledgeError.storage:
            return nil
        case let error as AccountError: self.init(error)
        case let error as PromptError: self.init(error)
        case let error as KnowledgeError: self.init(error)
        case let error as ChatError: self.init(error)
        case let error as ShareError: self.init(error)
        case StoreError.storageFull(let status): self = .storageFull(status)
        case StoreError.diskFull: self = .diskFull
        case StoreError.notFound: self = .notFound
        case let error as HTTPError where error.status == .notFound: self = .notFound
        case let error as HTTPError where error.status == .contentTooLarge:
            self.init(.contentTooLarge, code: "too_large", message: "The request is too large.")
        case let error as HTTPError where error.status.code < 500:
            self.init(error.status, code: "bad_request", message: error.body ?? "The request could not be read.")
        default: return nil
        }
    }

    /// The HTTP form of a chat action's refusal.
    init(_ error: ChatError) {
        switch error {
        case .notFound: self = .notFound
        case .wrongRole(let expected):
            self.init(
                .unprocessableContent, code: expected == .user ? "not_a_user_message" : "not_a_reply",
                message: expected == .user
                    ? "Only your own messages can be edited." : "Only the assistant's replies can be regenerated.")
        case .emptyMessage:
            self.init(.unprocessableContent, code: "empty_message", message: "The message is empty.")
        case .messageTooLong:
            self.init(
                .unprocessableContent, code: "message_too_long",
                message: "The message is longer than \(ChatService.maxMessageLength) characters.")
        case .invalidTitle:
            self.init(
                .unprocessableContent, code: "invalid_title",
                message: "A title needs 1 to \(ChatService.maxTitleLength) characters.")
        case .systemPromptTooLong:
            self.init(
                .unprocessableContent, code: "system_prompt_too_long",
                message: "The system prompt is longer than \(ChatService.maxSystemPromptLength) characters.")
        case .unknownModel(let model):
            self.init(.unprocessableContent, code: "unknown_model", message: "There is no model named “\(model)”.")
        case .modelNotAllowed(let model):
            self.init(
                .forbidden, code: "model_not_allowed",
                message: "You may not use “\(model)”: its use is kept to some groups. Choose another model, or ask an "
                    + "admin for access.")
        case .tooManyImages:
            self.init(
                .unprocessableContent, code: "too_many_images",
                message: "A message can carry at most \(ChatService.maxImagesPerMessage) images.")
        case .tooManyDocuments:
            self.init(
                .unprocessableContent, code: "too_many_documents",
                message: "A message can carry at most \(ChatService.maxDocumentsPerMessage) documents, each once.")
        case .documentNotReady(let problem):
            self.init(.unprocessableContent, code: "document_not_ready", message: problem)
        case .modelCannotSeeImages(let model):
            self.init(
                .unprocessableContent, code: "model_cannot_see_images",
                message:
                    "The model “\(model)” cannot see images. Choose a vision model, or send the message without images."
            )
        case .invalidAssistant(let problem):
            self.init(.unprocessableContent, code: "invalid_assistant", message: problem)
        case .readOnly:
            self.init(
                .forbidden, code: "read_only",
                message: "Only its author or an admin can change this. You can duplicate it and change your copy.")
        case .invalidSetting(let problem):
            self.init(.unprocessableContent, code: "invalid_setting", message: problem)
        case .modelDrawsImages(let model):
            self.init(
                .badRequest, code: "model_draws_images",
                message: "The model “\(model)” draws images; it does not write text. Choose a chat model.")
        case .busy:
            self.init(
                .conflict, code: "generation_running",
                message: "A reply is still being written in this conversation. Stop it or wait for it to finish.")
        case .requestInFlight:
            self.init(.conflict, code: "request_in_flight", message: "This message is already being answered.")
        case .budgetExceeded(let status):
            self.init(
                .init(code: 402, reasonPhrase: "Payment Required"), code: "budget_exceeded",
                message: BudgetNotice.exceeded(status))
        case .budgetReplyRunning:
            self.init(
                .conflict, code: "budget_reply_running",
                message: "Your account has a monthly budget, so your replies are written one at a time. "
                    + "Wait for your other reply to finish, or stop it.")
        case .shuttingDown:
            self.init(
                .serviceUnavailable, code: "shutting_down", message: "The server is restarting. Try again in a moment.")
        case .atCapacity:
            self.init(
                .serviceUnavailable, code: "server_busy",
                message: "The server is writing as many replies as it can hold right now. Try again in a few seconds.",
                headers: [.retryAfter: "5"])
        case .diskFull: self = .diskFull
        case .storageFull(let status): self = .storageFull(status)
        case .storage: self = .internalError
        }
    }
}

extension AppError {
    /// The HTTP form of an account action's refusal.
    init(_ error: AccountError) {
        switch error {
        case .invalid(let problem): self.init(.unprocessableContent, code: "invalid_account", message: problem)
        case .signupClosed:
            self.init(.forbidden, code: "signup_closed", message: "Sign-up is closed. Ask an admin for an account.")
        case .emailTaken:
            self.init(.conflict, code: "email_taken", message: "An account with this email exists already.")
        case .invalidCredentials:
            self.init(.unauthorized, code: "invalid_credentials", message: "The email or password is not right.")
        case .passwordSignInOff:
            self.init(
                .forbidden, code: "password_login_off",
                message: "Password sign-in is turned off here: sign in with single sign-on.")
        case .tooManySignIns(let wait):
            self = .tooManyRequests(code: "too_many_attempts", message: "Too many failed sign-ins.", wait: wait)
        case .tooManySignUps(let wait):
            self = .tooManyRequests(
                code: "too_many_attempts", message: "Too many sign-ups from your address.",
                wait: wait)
        case .wrongPassword:
            self.init(
                .badRequest, code: "wrong_password",
                message: "That is not your current password; nothing was changed.")
        case .noPassword:
            self.init(
                .badRequest, code: "no_password",
                message: "This account signs in with single sign-on, so it has no password to change.")
        case .invalidDisplayName(let problem):
            self.init(.unprocessableContent, code: "invalid_display_name", message: problem)
        case .inviteUsed:
            self.init(
                .gone, code: "invite_used",
                message: "This invite link has been used already. Ask whoever sent it for a new one.")
        case .inviteExpired:
            self.init(
                .gone, code: "invite_expired",
                message: "This invite link has expired: invites last 7 days. Ask whoever sent it for a new one.")
        case .inviteNotFound:
            self.init(
                .notFound, code: "invite_not_found",
                message:
                    "There is no invite at this link: it may have been withdrawn. Ask whoever sent it for a new one.")
        case .failed: self = .internalError
        }
    }
}
