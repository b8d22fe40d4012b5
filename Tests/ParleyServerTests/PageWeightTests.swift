import AsyncHTTPClient
import CompressNIO
import Foundation
import NIOCore
import Testing

@testable import ParleyServer

/// Light pages for slow networks: static files under fingerprinted names that browsers keep for a year, gzip for
/// every text response but event streams, and a conversation page that weighs under 60 KB compressed, all included.
@Suite("Page weight and static files")
struct PageWeightTests {
    /// A response with its raw (possibly compressed) body bytes.
    struct RawResponse {
        var status: Int
        var headers: [String: String]
        var body: ByteBuffer

        /// The body as text, gunzipped when it came compressed.
        func text() throws -> String {
            guard headers["content-encoding"] == "gzip" else { return String(buffer: body) }
            var compressed = body
            return String(buffer: try compressed.decompress(with: .gzip()))
        }
    }

    /// A GET with the session cookies of `browser`, asking for gzip unless told otherwise.
    static func fetch(
        _ server: TestServer, _ path: String, browser: Browser? = nil, gzip: Bool = true,
        headers: [(String, String)] = []
    ) async throws -> RawResponse {
        var request = HTTPClientRequest(url: server.baseURL + path)
        if gzip { request.headers.add(name: "Accept-Encoding", value: "gzip, deflate, br") }
        if let cookies = browser?.cookies, !cookies.isEmpty {
            request.headers.add(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
        }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await server.client.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 8 << 20)
        let names = Dictionary(
            response.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { $0 + ", " + $1 })
        return RawResponse(status: Int(response.status.code), headers: names, body: body)
    }

    /// The stylesheets and scripts a page links to.
    static func assetURLs(in html: String) -> [String] {
        html.matches(of: /<(?:link rel="stylesheet" href|script src)="([^"]+)"/).map { String($0.1) }
    }

    @Test("a conversation page's HTML, CSS and JS together weigh under 60 KB with gzip")
    func conversationPageWeight() async throws {
        try await withTestServer { server in
            let (browser, api) = try await server.signUp("light@example.com")
            let conversation = try await api.createConversation(title: "Light", model: "mock-long")
            try await api.sendAndWait(conversation, "a long answer, please")
            let page = try await Self.fetch(server, "/c/\(conversation)", browser: browser)
            #expect(page.status == 200 && page.headers["content-encoding"] == "gzip")
            let html = try page.text()
            #expect(html.contains("<table>"), "the long reply is on the page")
            let assets = Self.assetURLs(in: html)
            #expect(assets.count >= 2 && assets.allSatisfy { $0.hasPrefix("/static/") })
            var total = page.body.readableBytes
            var weights = ["page": page.body.readableBytes]
            for url in assets {
                let asset = try await Self.fetch(server, url)
                #expect(asset.status == 200 && asset.headers["content-encoding"] == "gzip", "\(url)")
                total += asset.body.readableBytes
                weights[url] = asset.body.readableBytes
            }
            print("conversation page weight with gzip: \(total) bytes (\(weights.sorted { $0.key < $1.key }))")
            #expect(total < 60 * 1024, "\(weights)")
        }
    }

    @Test(
        "static files: fingerprinted names cached for a year, plain names revalidated, the service worker at the root")
    func staticFiles() async throws {
        try await withTestServer { server in
            let login = try await Self.fetch(server, "/login", gzip: false)
            let urls = Self.assetURLs(in: try login.text())
            let script = try #require(urls.first { $0.contains("/static/app.") && $0.hasSuffix(".js") })
            #expect(script.wholeMatch(of: /\/static\/app\.[0-9a-f]{10}\.js/) != nil)
            let source = try String(contentsOfFile: TestServer.repositoryRoot + "/Public/app.js", encoding: .utf8)

            let fingerprinted = try await Self.fetch(server, script)
            #expect(fingerprinted.headers["cache-control"] == "public, max-age=31536000, immutable")
            #expect(fingerprinted.headers["content-encoding"] == "gzip")
            #expect(fingerprinted.headers["vary"] == "Accept-Encoding")
            #expect(fingerprinted.headers["content-type"]?.hasPrefix("application/javascript") == true)
            #expect(try fingerprinted.text() == source)

            let plain = try await Self.fetch(server, "/static/app.js", gzip: false)
            #expect(plain.headers["cache-control"] == "no-cache" && plain.headers["content-encoding"] == nil)
            #expect(String(buffer: plain.body) == source)
            let etag = try #require(plain.headers["etag"])
            #expect(try await Self.fetch(server, "/static/app.js", headers: [("If-None-Match", etag)]).status == 304)

            #expect(try await Self.fetch(server, "/static/app.0123456789.js").status == 404)  // an old or made-up hash
            #expect(try await Self.fetch(server, "/static/missing.js").status == 404)
            #expect(try await Self.fetch(server, "/static/..%2FPackage.swift").status == 404)

            let worker = try await Self.fetch(server, "/sw.js")
            #expect(worker.status == 200 && worker.headers["cache-control"] == "no-cache")
            #expect(worker.headers["service-worker-allowed"] == "/")
            #expect(try worker.text().contains("parley-pages"))
        }
    }

    @Test("pages are gzipped for clients that take it; event streams never are, so every event arrives at once")
    func compression() async throws {
        try await withTestServer { server in
            var (browser, api) = try await server.signUp("gzip@example.com")
            let gzipped = try await Self.fetch(server, "/c", browser: browser)
            #expect(
                gzipped.headers["content-encoding"] == "gzip"
                    && gzipped.headers["vary"]?.contains("Accept-Encoding") == true)
            #expect(try gzipped.text().contains("<h1>Conversations</h1>"))
            let plain = try await Self.fetch(server, "/c", browser: browser, gzip: false)
            #expect(
                plain.headers["content-encoding"] == nil
                    && String(buffer: plain.body).contains("<h1>Conversations</h1>"))
            let refused = try await Self.fetch(
                server, "/c", browser: browser, gzip: false, headers: [("Accept-Encoding", "gzip;q=0")])
            #expect(refused.headers["content-encoding"] == nil)
            #expect(try await Self.fetch(server, "/healthz").headers["content-encoding"] == nil)  // too small to gain

            let conversation = try await browser.createConversation(content: "stream me", model: "mock-slow")
            var request = HTTPClientRequest(url: server.baseURL + "/c/\(conversation)/events")
            request.headers.add(name: "Authorization", value: "Bearer \(api.token ?? "")")
            request.headers.add(name: "Accept-Encoding", value: "gzip")
            let response = try await server.client.execute(request, timeout: .seconds(30))
            let events = EventReader(status: Int(response.status.code), headers: response.headers, body: response.body)
            #expect(events.headers.first(name: "content-encoding") == nil)
            #expect(events.headers.first(name: "content-type")?.hasPrefix("text/event-stream") == true)
            let first = try await events.collect(timeout: .seconds(5)) { $0.name == "token" }
            #expect(first.last?.name == "token")  // the first token came while the reply still streams
        }
    }

    @Test("templates name every public file by a key made from its file name")
    func templateKeys() throws {
        let assets = try StaticAssets(directory: TestServer.repositoryRoot + "/Public")
        for file in ["app.css", "app.js", "attachments.js", "offline.js", "voice.js", "icon.svg", "sw.js"] {
            let url = try #require(assets.urls[StaticAssets.templateKey(file)], "\(file)")
            #expect(assets.asset(named: String(url.dropFirst("/static/".count)))?.fileName == file)
        }
        #expect(StaticAssets.templateKey("attachments.js") == "attachments_js")

        // A key no file has would render as an empty URL: every key the templates use must name a file.
        let templates = TestServer.repositoryRoot + "/Templates"
        for name in try FileManager.default.contentsOfDirectory(atPath: templates) where name.hasSuffix(".mustache") {
            let text = try String(contentsOfFile: templates + "/" + name, encoding: .utf8)
            for key in text.matches(of: /\{\{assets\.(\w+)\}\}/).map({ String($0.1) }) {
                #expect(assets.urls[key] != nil, "\(name) names {{assets.\(key)}}, which no file in Public/ has")
            }
        }
    }
}
