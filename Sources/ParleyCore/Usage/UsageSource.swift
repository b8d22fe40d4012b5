/// Where usage came from: conversations (replies and their titles) or the OpenAI-compatible endpoint.
public enum UsageSource: String, Sendable, CaseIterable {
    case chat, api
}
