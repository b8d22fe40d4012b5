import Hummingbird

extension Request {
    /// Whether the caller wants JSON (the API, the OpenAI-compatible endpoint, a script asking for it, or one sending
    /// JSON) rather than an HTML page.
    var wantsJSON: Bool {
        if uri.path.hasPrefix("/api/") || isOpenAICompatible
            || headers[.contentType]?.lowercased().hasPrefix("application/json") == true
        {
            return true
        }
        let accept = headers[.accept] ?? ""
        return accept.contains("application/json") && !accept.contains("text/html")
    }

    /// Whether the request is to the OpenAI-compatible endpoint, whose errors take OpenAI's shape.
    var isOpenAICompatible: Bool { uri.path.hasPrefix("/v1/") }

    /// Whether the method changes state.
    var isUnsafeMethod: Bool {
        ![.get, .head, .options].contains(method)
    }
}
