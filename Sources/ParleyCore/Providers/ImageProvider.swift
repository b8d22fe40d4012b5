/// A picture a provider drew: its bytes (checked like an upload before they are stored) and the prompt as the
/// provider rewrote it, when it says.
public struct GeneratedImage: Sendable, Equatable {
    public var bytes: [UInt8]
    public var revisedPrompt: String?

    /// Creates a generated image.
    public init(bytes: [UInt8], revisedPrompt: String? = nil) {
        self.bytes = bytes
        self.revisedPrompt = revisedPrompt
    }
}

/// An upstream that draws a picture from a prompt (an OpenAI-compatible `images/generations`).
public protocol ImageProvider: Sendable {
    /// Draws one picture of `prompt` with the upstream's `model`; cancelling the task closes the request.
    func generateImage(prompt: String, model: String) async throws(ProviderError) -> GeneratedImage
}
