import Foundation

/// Reads a password from standard input, without echo when it is a terminal.
enum PasswordPrompt {
    /// The first line of standard input (the prompt goes to standard error, and only on a terminal).
    static func read(prompt: String) -> String {
        guard isatty(STDIN_FILENO) == 1 else { return readLine(strippingNewline: true) ?? "" }
        FileHandle.standardError.write(Data(prompt.utf8))
        var original = termios()
        tcgetattr(STDIN_FILENO, &original)
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSANOW, &original)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true) ?? ""
    }
}
