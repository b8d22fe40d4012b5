import Hummingbird

extension Request {
    /// Whether the caller wants JSON (the API, or a script asking for it) rather than an HTML page.
    var wantsJSON: Bool {
        if uri.path.hasPrefix("/api/") { return true }
        let accept = headers[.accept] ?? ""
        return accept.contains("application/json") && !accept.contains("text/html")
    }

    /// Whether the method changes state.
    var isUnsafeMethod: Bool {
        ![.get, .head, .options].contains(method)
    }
}
