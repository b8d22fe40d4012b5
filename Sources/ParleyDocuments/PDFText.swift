import Foundation

/// A PDF's text, page by page, read by Poppler's `pdftotext` in a child process under limits.
enum PDFText {
    /// The text of each page of the PDF in `file`.
    static func pages(of file: String, runner: ChildProcess) async throws(DocumentRejection) -> [String] {
        let output = file + ".txt"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let run: ChildProcess.Output
        do {
            run = try await runner.run(
                "/usr/bin/pdftotext", ["-enc", "UTF-8", "-eol", "unix", file, "-"],
                standardOutput: output)
        } catch {
            switch error {
            case .overLimit: throw .tooCostly
            case .notStarted: throw .unsupported(name: "PDF (pdftotext is not installed)")
            }
        }
        guard run.status == 0 else {
            throw run.stderr.localizedCaseInsensitiveContains("password") ? .passwordProtected : .malformed
        }
        guard let data = FileManager.default.contents(atPath: output) else { throw .malformed }
        // Pages end with a form feed.
        var pages = TextDecoding.decode([UInt8](data)).components(separatedBy: "\u{0C}")
        if pages.last?.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty == true, pages.count > 1 {
            pages.removeLast()
        }
        guard pages.contains(where: { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }) else {
            throw .noText
        }
        return pages
    }
}
