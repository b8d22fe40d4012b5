import Foundation

extension GenerationManager {
    /// The reply of an image model: the picture it draws for the last message, checked like an upload, stored as the
    /// reply's attachment, and shown in the reply's markdown; the usage is one image. Not retried.
    func drawImage(for reply: ReplyRun, prompt: String) async -> StreamEnd {
        let job = reply.job
        guard let provider = catalog.provider(for: job.model) as? any ImageProvider else {
            return .failed(
                FailureReason(
                    code: "unsupported_model", message: "The provider of “\(job.model.id)” cannot draw pictures."))
        }
        let picture: GeneratedImage
        do {
            picture = try await provider.generateImage(prompt: prompt, model: job.model.upstreamID)
        } catch {
            if error == .cancelled || Task.isCancelled { return .cancelled }
            GenerationMetrics.upstreamError(model: job.model.id, code: error.reason.code)
            return .failed(error.reason)
        }
        var image: NewImage
        do {
            image = try NewImage(fileName: "", bytes: picture.bytes)
        } catch {
            return .failed(
                FailureReason(
                    code: "malformed_response", message: "The provider's picture is not a PNG, JPEG, WebP or GIF image."
                ))
        }
        image.fileName = "generated.\(image.facts.format.rawValue)"
        let stored: [Attachment]
        do {
            stored = try await store.addAttachments([image], messageID: job.assistantMessageID, userID: job.userID)
        } catch {
            logger.error("storing a generated picture failed", metadata: ["error": "\(error)"])
            return .failed(FailureReason(code: "internal_error", message: "Parley could not store the picture."))
        }
        let caption = picture.revisedPrompt.map { "\n\n" + Self.escapedMarkdown($0) } ?? ""
        reply.updateReport { $0.providerUsage = Usage(completionTokens: 1) }
        receive(.text("![Generated image](/attachments/\(stored[0].id))" + caption), for: reply)
        return .completed
    }

    /// Text that markdown shows as written: every ASCII punctuation character backslash-escaped, lines joined.
    static func escapedMarkdown(_ text: String) -> String {
        var escaped = ""
        for character in text.replacingOccurrences(of: "\n", with: " ") {
            if character.isASCII, character.isPunctuation || character.isSymbol { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
