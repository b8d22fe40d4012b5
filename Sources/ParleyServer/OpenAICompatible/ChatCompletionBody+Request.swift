import Foundation
import ParleyCore

extension ChatCompletionBody {
    /// The completion this body asks for, or a 400 naming the first problem: no messages, an unknown role, a part
    /// that is neither text nor a data-URL image, an image that is not PNG, JPEG, WebP or GIF or is larger than
    /// `maxImageBytes`, more than `maxImages` images, more than one choice, or an unknown reasoning effort. The
    /// options' ranges are the model's, checked once it is known.
    func completionRequest(maxImageBytes: Int, maxImages: Int) throws(AppError) -> APICompletionRequest {
        guard !messages.isEmpty else { throw Self.invalid("messages", "must hold at least one message.") }
        if let n, n != 1 { throw Self.invalid("n", "must be 1: Parley writes one choice.") }
        var options = GenerationOptions(
            temperature: temperature, topP: topP, maxTokens: maxCompletionTokens ?? maxTokens,
            stop: stop?.sequences ?? [])
        if let reasoningEffort {
            guard let effort = ReasoningEffort(rawValue: reasoningEffort) else {
                throw Self.invalid("reasoning_effort", "must be low, medium or high.")
            }
            options.reasoningEffort = effort
        }
        var turns: [ChatTurn] = []
        var imageCount = 0
        for (index, message) in messages.enumerated() {
            let turn = try Self.turn(message, at: index, maxImageBytes: maxImageBytes)
            imageCount += turn.images.count
            guard imageCount <= maxImages else {
                throw Self.invalid("messages", "carry more than \(maxImages) images.")
            }
            turns.append(turn)
        }
        return APICompletionRequest(model: model, turns: turns, options: options)
    }

    /// A message as a turn: `system` and `developer` are the system prompt; images only in a user's message.
    private static func turn(_ message: Message, at index: Int, maxImageBytes: Int) throws(AppError) -> ChatTurn {
        let role: MessageRole
        switch message.role {
        case "system", "developer": role = .system
        case "user": role = .user
        case "assistant": role = .assistant
        default:
            throw invalid("messages[\(index)].role", "must be system, developer, user or assistant.")
        }
        switch message.content {
        case nil: return ChatTurn(role: role, content: "")
        case .text(let text): return ChatTurn(role: role, content: text)
        case .parts(let parts):
            var texts: [String] = []
            var images: [TurnImage] = []
            for part in parts {
                switch (part.type, part.text, part.imageUrl) {
                case ("text", let text?, _): texts.append(text)
                case ("image_url", _, let image?) where role == .user:
                    images.append(try Self.image(image.url, in: index, maxBytes: maxImageBytes))
                default:
                    throw invalid(
                        "messages[\(index)].content",
                        "parts must be text, or image_url in a user's message.")
                }
            }
            return ChatTurn(role: role, content: texts.joined(separator: "\n"), images: images)
        }
    }

    /// The image of a base64 data URL, checked by its bytes.
    private static func image(_ url: String, in index: Int, maxBytes: Int) throws(AppError) -> TurnImage {
        let field = "messages[\(index)].content"
        guard url.hasPrefix("data:"), let comma = url.firstIndex(of: ","),
            url[..<comma].hasSuffix(";base64")
        else { throw invalid(field, "images must be base64 data URLs: Parley does not fetch addresses.") }
        // Base64 is 4 characters for 3 bytes: a longer text cannot be within the limit.
        guard url.utf8.count - url.utf8.distance(from: url.startIndex, to: comma) <= maxBytes / 3 * 4 + 4,
            let data = Data(base64Encoded: String(url[url.index(after: comma)...]))
        else {
            throw AppError(
                .contentTooLarge, code: "image_too_large",
                message: "An image in \(field) is not base64 or is larger than \(maxBytes / 1_048_576) MB.")
        }
        let bytes = [UInt8](data)
        do {
            let facts = try ImageInspector.inspect(bytes)
            return TurnImage(contentType: facts.format.contentType, bytes: bytes)
        } catch {
            throw invalid(field, "holds an image that is not a whole PNG, JPEG, WebP or GIF of sides up to 16,384.")
        }
    }

    /// A 400 naming the parameter and what it must be.
    private static func invalid(_ parameter: String, _ rule: String) -> AppError {
        AppError(.badRequest, code: "invalid_request", message: "“\(parameter)” \(rule)")
    }
}
