import Foundation
import Testing

@testable import ParleyServer

/// Pinning keeps conversations on top of the list; archiving moves them out of it, still searchable.
@Suite("Pin and archive")
struct PinArchiveTests {
    /// The conversation links of a list page, in order.
    static func listed(_ html: String) -> [Int64] {
        html.matches(of: /<a href="\/c\/([0-9]+)">/).compactMap { Int64($0.1) }
    }

    @Test("a pinned conversation stays on top of the page and the API; unpinning puts it back in activity order")
    func pinning() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let api = try await APIClient.signIn(server, email: "user@example.com")
            let first = try await api.createConversation(title: "First")
            let second = try await api.createConversation(title: "Second")
            let third = try await api.createConversation(title: "Third")
            #expect(Self.listed(try await browser.get("/c").body) == [third, second, first])

            let pinned = try await browser.post("/c/\(first)/pin", form: ["back": "/c"])
            #expect(pinned.status == 303)
            #expect(pinned.location == "/c")
            let page = try await browser.get("/c")
            #expect(Self.listed(page.body) == [first, third, second])
            #expect(page.body.contains(#"<span class="tag pinned">Pinned</span> <a href="/c/\#(first)">First</a>"#))
            #expect(page.body.contains(#"action="/c/\#(first)/unpin""#))
            #expect(page.body.contains(#"action="/c/\#(second)/pin""#))
            let listed = try await api.conversations()
            #expect(ids(listed) == [first, third, second])
            #expect(listed.map { $0["pinned"] as? Bool } == [true, false, false])
            #expect(listed.map { $0["archived"] as? Bool } == [false, false, false])
            #expect(try await browser.get("/c/\(first)").body.contains(#"<span class="tag pinned">Pinned</span>"#))

            #expect(try await browser.post("/c/\(first)/pin").location == "/c/\(first)")
            let unpinned = try await browser.post("/c/\(first)/unpin", form: ["back": "/c/\(first)"])
            #expect(unpinned.location == "/c/\(first)")
            #expect(ids(try await api.conversations()) == [third, second, first])
            #expect(
                try await browser.post("/c/\(first)/unpin", headers: [("Accept", "application/json")]).status == 204)
        }
    }

    @Test("the form's way back only ever leads to a page of this server")
    func backIsLocal() async throws {
        try await withTestServer { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let id = try await browser.createConversation()
            for back in [
                "https://evil.example/c", "//evil.example", "/\\evil.example", "javascript:alert(1)",
                "/c/1\r\nSet-Cookie: x=1", "",
            ] {
                let response = try await browser.post("/c/\(id)/pin", form: ["back": back])
                #expect(response.status == 303)
                #expect(response.location == "/c/\(id)", "\(back)")
            }
            #expect(
                try await browser.post("/c/\(id)/archive", form: ["back": "/c?archived=1"]).location == "/c?archived=1")
        }
    }

    @Test("an archived conversation leaves the list, shows under Archived, stays searchable, and comes back")
    func archiving() async throws {
        try await withTestServer(mockTokens: 2) { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let api = try await APIClient.signIn(server, email: "user@example.com")
            let kept = try await api.createConversation(title: "Kept")
            let old = try await api.createConversation(title: "Old")
            try await api.sendAndWait(old, "the archived walrus")
            let message = try #require(try await api.messages(old).first?["id"] as? Int)

            #expect(try await browser.post("/c/\(old)/archive", form: ["back": "/c"]).location == "/c")
            let list = try await browser.get("/c")
            #expect(Self.listed(list.body) == [kept])
            #expect(list.body.contains(#"<a href="/c?archived=1">Archived conversations</a>"#))
            let archived = try await browser.get("/c?archived=1")
            #expect(Self.listed(archived.body) == [old])
            #expect(archived.body.contains(#"action="/c/\#(old)/unarchive""#))
            #expect(archived.body.contains("<h1>Archived conversations</h1>"))
            #expect(ids(try await api.conversations()) == [kept])
            let archivedJSON = try await api.conversations(archived: true)
            #expect(ids(archivedJSON) == [old])
            #expect(archivedJSON.first?["archived"] as? Bool == true)
            let sidebar = try await browser.get("/c/\(kept)")
            #expect(!sidebar.body.contains(#"href="/c/\#(old)""#))

            let found = try await browser.get(searchPath("walrus"))
            #expect(SearchTests.resultLinks(found.body) == ["/c/\(old)?at=\(message)#m\(message)"])
            #expect(found.body.contains(#"<span class="tag">Archived</span>"#))
            let page = try await browser.get("/c/\(old)")
            #expect(page.status == 200)
            #expect(page.body.contains(#"<span class="tag">Archived</span>"#))

            #expect(try await browser.post("/c/\(old)/unarchive").location == "/c/\(old)")
            #expect(ids(try await api.conversations()) == [old, kept])
            #expect(try await api.conversations(archived: true).isEmpty)
        }
    }

    @Test("another user's conversation is 404 for every flag route, and a form without its CSRF token is 403")
    func ownershipAndCSRF() async throws {
        try await withTestServer(configure: { $0.signup = .open }) { server in
            var owner = server.browser()
            _ = try await owner.signUp("owner@example.com")
            let id = try await owner.createConversation()
            var intruder = server.browser()
            _ = try await intruder.signUp("intruder@example.com")
            for change in PinArchiveController.Change.allCases {
                #expect(try await intruder.post("/c/\(id)/\(change.rawValue)").status == 404, "\(change)")
                #expect(try await intruder.post("/c/999999/\(change.rawValue)").status == 404, "\(change)")
                #expect(try await owner.post("/c/\(id)/\(change.rawValue)", csrf: false).status == 403, "\(change)")
            }
            let ownerAPI = try await APIClient.signIn(server, email: "owner@example.com")
            let listed = try await ownerAPI.conversations()
            #expect(ids(listed) == [id])
            #expect(listed.first?["pinned"] as? Bool == false)
        }
    }
}
