/// A short name for the device behind a `User-Agent`, as the sessions list shows it: "Firefox on Linux", "Chrome on
/// Android", "curl", or "Unknown device" when nothing in it is recognised.
enum DeviceName {
    /// Browsers by a token of their `User-Agent`, the more specific first (Edge and Opera also say Chrome, Chrome also
    /// says Safari).
    private static let browsers: [(token: String, name: String)] = [
        ("Edg/", "Edge"), ("EdgA/", "Edge"), ("EdgiOS/", "Edge"), ("OPR/", "Opera"),
        ("SamsungBrowser/", "Samsung Internet"),
        ("Firefox/", "Firefox"), ("FxiOS/", "Firefox"), ("CriOS/", "Chrome"), ("Chromium/", "Chromium"),
        ("Chrome/", "Chrome"), ("Safari/", "Safari"),
    ]
    /// Systems by a token of their `User-Agent`, the more specific first (Android also says Linux, iOS says Mac OS X).
    private static let systems: [(token: String, name: String)] = [
        ("Android", "Android"), ("iPhone", "iOS"), ("iPad", "iPadOS"), ("CrOS", "ChromeOS"), ("Windows", "Windows"),
        ("Macintosh", "macOS"), ("Mac OS X", "macOS"), ("Linux", "Linux"), ("FreeBSD", "FreeBSD"),
    ]
    /// Programs that are not browsers, by the start of their `User-Agent`.
    private static let tools: [(prefix: String, name: String)] = [
        ("curl/", "curl"), ("Wget/", "Wget"), ("python-requests/", "Python requests"), ("Python-urllib/", "Python"),
        ("python-httpx/", "Python httpx"), ("Go-http-client/", "Go program"), ("node-fetch", "Node.js program"),
        ("okhttp/", "OkHttp"), ("PostmanRuntime/", "Postman"), ("HTTPie/", "HTTPie"),
    ]

    /// The device's short name.
    static func describe(_ userAgent: String?) -> String {
        guard let userAgent, !userAgent.isEmpty else { return "Unknown device" }
        if let tool = tools.first(where: { userAgent.hasPrefix($0.prefix) }) { return tool.name }
        let browser = browsers.first { userAgent.contains($0.token) }?.name
        let system = systems.first { userAgent.contains($0.token) }?.name
        switch (browser, system) {
        case (let browser?, let system?): return "\(browser) on \(system)"
        case (let browser?, nil): return browser
        case (nil, let system?): return "A browser on \(system)"
        case (nil, nil): return "Unknown device"
        }
    }
}
