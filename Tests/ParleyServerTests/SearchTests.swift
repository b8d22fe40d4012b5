import Foundation
import Testing

@testable import ParleyServer

/// `GET /search`: the user's own messages and titles, ranked, with escaped snippets; hostile queries are harmless.
@Suite("Search")
struct SearchTests {
    /// The result links of a search page, in order.
    static func resultLinks(_ html: String) -> [String] {
        html.matches(of: /<li>\s*<a href="(\/c\/[0-9]+(?:\?at=[0-9]+#m[0-9]+)?)">/).map { String($0.1) }
    }

    @Test("search finds the user's own messages best first, escaped, with our marks, and never another user's")
    func ownMessagesRanked() async throws {
        try await withTestServer(mockTokens: 3, configure: { $0.signup = .open }) { server in
            var (alice, aliceAPI) = try await server.signUp("alice@example.com")
            var (bob, bobAPI) = try await server.signUp("bob@example.com")
            let plan = try await aliceAPI.createConversation(title: "Alpha")
            let fado = try await aliceAPI.createConversation(title: "Beta")
            let bobs = try await bobAPI.createConversation(title: "Lisbon by Bob")
            try await aliceAPI.sendAndWait(plan, "Plan a <script>alert(1)</script> trip to Lisbon & Porto")
            try await aliceAPI.sendAndWait(fado, "Lisbon, Lisbon, Lisbon!")
            try await bobAPI.sendAndWait(bobs, "Lisbon is where Bob lives")
            let planMessage = try #require(try await aliceAPI.messages(plan).first?["id"] as? Int)
            let fadoMessage = try #require(try await aliceAPI.messages(fado).first?["id"] as? Int)

            let page = try await alice.get(searchPath("lisbon"))
            #expect(page.status == 200)
            #expect(
                Self.resultLinks(page.body) == [
                    "/c/\(fado)?at=\(fadoMessage)#m\(fadoMessage)", "/c/\(plan)?at=\(planMessage)#m\(planMessage)",
                ])
            #expect(
                page.body.contains(
                    #"<p class="snippet"><span class="tag">user</span> Plan a &lt;script&gt;alert(1)&lt;/script&gt; trip to <mark>Lisbon</mark> &amp; Porto</p>"#
                ))
            #expect(
                page.body.contains(
                    #"<p class="snippet"><span class="tag">user</span> <mark>Lisbon</mark>, <mark>Lisbon</mark>, <mark>Lisbon</mark>!</p>"#
                ))
            #expect(!page.body.contains("<script>alert"))
            #expect(!page.body.contains("Bob"))
            #expect(page.body.contains(#"name="q" value="lisbon""#))

            let bobsPage = try await bob.get(searchPath("lisbon"))
            let bobsMessage = try #require(try await bobAPI.messages(bobs).first?["id"] as? Int)
            #expect(
                Set(Self.resultLinks(bobsPage.body)) == ["/c/\(bobs)", "/c/\(bobs)?at=\(bobsMessage)#m\(bobsMessage)"])
            #expect(bobsPage.body.contains(#"<a href="/c/\#(bobs)"><mark>Lisbon</mark> by Bob</a>"#))
            #expect(try await bob.get(searchPath("porto")).body.contains("Nothing matches “porto”"))

            let list = try await alice.get("/c")
            #expect(list.body.contains(#"<form method="get" action="/search" role="search""#))
        }
    }

    @Test("quoted phrases match words in order; a trailing * matches every word it begins")
    func phrasesAndPrefixes() async throws {
        try await withTestServer(mockTokens: 2) { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let api = try await APIClient.signIn(server, email: "user@example.com")
            let first = try await api.createConversation(title: "One")
            let second = try await api.createConversation(title: "Two")
            try await api.sendAndWait(first, "the quick brown fox")
            try await api.sendAndWait(second, "brown and quick foxes")
            let firstMessage = try #require(try await api.messages(first).first?["id"] as? Int)
            let secondMessage = try #require(try await api.messages(second).first?["id"] as? Int)

            #expect(
                Self.resultLinks(try await browser.get(searchPath(#""quick brown""#)).body) == [
                    "/c/\(first)?at=\(firstMessage)#m\(firstMessage)"
                ])
            #expect(
                Set(Self.resultLinks(try await browser.get(searchPath("quick brown")).body))
                    == [
                        "/c/\(first)?at=\(firstMessage)#m\(firstMessage)",
                        "/c/\(second)?at=\(secondMessage)#m\(secondMessage)",
                    ])
            #expect(
                Self.resultLinks(try await browser.get(searchPath("fox")).body) == [
                    "/c/\(first)?at=\(firstMessage)#m\(firstMessage)"
                ])
            #expect(
                Set(Self.resultLinks(try await browser.get(searchPath("fox*")).body))
                    == [
                        "/c/\(first)?at=\(firstMessage)#m\(firstMessage)",
                        "/c/\(second)?at=\(secondMessage)#m\(secondMessage)",
                    ])
            #expect(Self.resultLinks(try await browser.get(searchPath(#""brown quick""#)).body).isEmpty)
            let prefixPage = try await browser.get(searchPath("fox*"))
            #expect(prefixPage.body.contains("brown and quick <mark>foxes</mark>"))
        }
    }

    @Test("hostile query syntax answers 200 with no or valid results, never a 500, and changes nothing")
    func hostileQueries() async throws {
        try await withTestServer(mockTokens: 2) { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let api = try await APIClient.signIn(server, email: "user@example.com")
            let id = try await api.createConversation(title: "Tables")
            try await api.sendAndWait(id, "please drop the table of messages near x")
            let message = try #require(try await api.messages(id).first?["id"] as? Int)
            let hostile = [
                #"""#, "NEAR(", "NEAR(drop table)", "*", "title:x", "content:drop", "'; DROP TABLE messages; --",
                "drop OR", "(", #"\"#, "%00", "\u{E000}drop\u{E001}", String(repeating: "q", count: 10_240),
                String(repeating: #"" NEAR( * "#, count: 1_000), "",
            ]
            for query in hostile {
                let page = try await browser.get(searchPath(query))
                #expect(page.status == 200, "\(query.prefix(30))")
                #expect(Self.resultLinks(page.body).allSatisfy { $0.hasPrefix("/c/\(id)") }, "\(query.prefix(30))")
            }
            #expect(
                Self.resultLinks(try await browser.get(searchPath("'; DROP TABLE messages; --")).body) == [
                    "/c/\(id)?at=\(message)#m\(message)"
                ])
            #expect(Self.resultLinks(try await browser.get(searchPath("*")).body).isEmpty)
            #expect(try await browser.get(searchPath("*")).body.contains("Nothing matches “*”"))
            #expect(try await api.messages(id).count == 2)
            #expect(try await browser.get("/search?q=%ZZ%").status == 200)
        }
    }
}
