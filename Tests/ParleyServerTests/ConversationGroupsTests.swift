import Foundation
import ParleyCore
import Testing

@testable import ParleyServer

/// The conversation list's sections by last activity, in the reader's time zone.
@Suite("Conversation groups")
struct ConversationGroupsTests {
    /// A conversation last active at `date`.
    private static func conversation(_ id: ConversationID, _ date: String, pinned: Bool = false) throws -> Conversation
    {
        Conversation(
            id: id, userID: 1, title: "c\(id)", model: "m", systemPrompt: "", createdAt: .distantPast,
            updatedAt: try Date(date, strategy: .iso8601), pinned: pinned)
    }

    private static func headings(_ conversations: [Conversation], now: String, zone: String) throws -> [String] {
        let sections = ConversationGroups.sections(
            conversations, now: try Date(now, strategy: .iso8601), timeZone: TimeZone(identifier: zone)!
        ) { ["id": $0.id] }
        return sections.map { section in
            let ids = (section["conversations"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? ConversationID }
            return "\(section["heading"] ?? ""): \(ids.map(String.init).joined(separator: ","))"
        }
    }

    @Test("pinned first, then today, yesterday, the previous 7 and 30 days, then each month")
    func sectionsByAge() throws {
        let list = [
            try Self.conversation(1, "2026-03-01T08:00:00Z", pinned: true),
            try Self.conversation(2, "2026-11-26T09:00:00Z"), try Self.conversation(3, "2026-11-25T23:00:00Z"),
            try Self.conversation(4, "2026-11-20T12:00:00Z"), try Self.conversation(5, "2026-11-01T12:00:00Z"),
            try Self.conversation(6, "2026-10-02T12:00:00Z"), try Self.conversation(7, "2025-12-31T12:00:00Z"),
        ]
        #expect(
            try Self.headings(list, now: "2026-11-26T12:00:00Z", zone: "UTC") == [
                "Pinned: 1", "Today: 2", "Yesterday: 3", "Previous 7 days: 4", "Previous 30 days: 5",
                "October 2026: 6", "December 2025: 7",
            ])
    }

    @Test("days are the reader's: 23:00 UTC is already tomorrow in Tokyo and still today in New York")
    func sectionsFollowTheTimeZone() throws {
        let list = [try Self.conversation(1, "2026-11-25T23:00:00Z")]
        #expect(try Self.headings(list, now: "2026-11-26T02:00:00Z", zone: "UTC") == ["Yesterday: 1"])
        #expect(try Self.headings(list, now: "2026-11-26T02:00:00Z", zone: "Asia/Tokyo") == ["Today: 1"])
        #expect(try Self.headings(list, now: "2026-11-26T02:00:00Z", zone: "America/New_York") == ["Today: 1"])
        #expect(try Self.headings([], now: "2026-11-26T02:00:00Z", zone: "UTC").isEmpty)
    }

    @Test("the list and the sidebar show the sections; a cookie naming no time zone falls back to UTC")
    func pagesShowSections() async throws {
        try await withTestServer(mockTokens: 3) { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            let id = try await browser.createConversation(content: "")
            for zone in ["Asia/Tokyo", "Not/AZone"] {
                browser.cookies["parley_tz"] = zone
                let list = try await browser.get("/c")
                #expect(list.status == 200 && list.body.contains(#"<h2 class="group">Today</h2>"#), "\(zone)")
                #expect(try await browser.get("/c/\(id)").body.contains(#"<h2 class="group">Today</h2>"#))
            }
        }
    }

    @Test("Settings keeps a chosen time zone in the browser's cookie; a name that is no zone is refused with 422")
    func timeZoneSetting() async throws {
        try await withTestServer(mockTokens: 3) { server in
            var browser = server.browser()
            _ = try await browser.signUp("user@example.com")
            // Without a choice, UTC (which Foundation on Linux names GMT).
            let initial = try await browser.get("/settings").body
            #expect(
                initial.contains(#"<option value="GMT" selected>"#)
                    || initial.contains(#"<option value="UTC" selected>"#))
            let chosen = try await browser.post("/settings/time-zone", form: ["zone": "Asia/Tokyo"])
            #expect(chosen.status == 303 && browser.cookies["parley_tz"] == "Asia/Tokyo")
            #expect(try await browser.get("/settings").body.contains(#"<option value="Asia/Tokyo" selected>"#))
            let refused = try await browser.post("/settings/time-zone", form: ["zone": "Mars/Olympus"])
            #expect(refused.status == 422 && browser.cookies["parley_tz"] == "Asia/Tokyo")
            var anonymous = server.browser()
            #expect(try await anonymous.post("/settings/time-zone", form: ["zone": "UTC"]).status != 303)
        }
    }
}
