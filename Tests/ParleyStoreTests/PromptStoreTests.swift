import Foundation
import ParleyCore
import Testing

/// Saved prompts and whom each is shared with, the same on every database.
@Suite struct PromptStoreTests {
    @Test(
        "a prompt is stored with its groups if shared with groups; a command is its author's once; updates and deletes of what is gone are notFound",
        arguments: StoreKind.allCases)
    func writes(kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let ada = try await stores.accounts.createUser(email: "ada@example.com", passwordHash: "h", isAdmin: false)
            let bob = try await stores.accounts.createUser(email: "bob@example.com", passwordHash: "h", isAdmin: false)
            let staff = try await stores.groups.createGroup(name: "Staff")
            var summary = try await stores.prompts.createPrompt(
                Prompt(
                    id: 0, authorID: ada.id, title: "Summary", command: "sum", body: "Sum up {{text}}",
                    visibility: .groups, groupIDs: [staff.id, 999]))
            #expect(summary.id > 0 && summary.groupIDs == [staff.id] && summary.title == "Summary")
            await #expect(throws: StoreError.duplicate) {
                _ = try await stores.prompts.createPrompt(
                    Prompt(id: 0, authorID: ada.id, title: "Again", command: "sum", body: "x"))
            }
            _ = try await stores.prompts.createPrompt(
                Prompt(id: 0, authorID: bob.id, title: "Bob's", command: "sum", body: "x"))

            summary.visibility = .private
            summary.title = "Summary, private"
            let updated = try await stores.prompts.updatePrompt(summary)
            #expect(updated.groupIDs.isEmpty && updated.title == "Summary, private")
            #expect(try await stores.prompts.commands(authorID: ada.id) == ["sum"])
            var gone = summary
            gone.id = 999
            await #expect(throws: StoreError.notFound) { _ = try await stores.prompts.updatePrompt(gone) }
            try await stores.prompts.deletePrompt(id: summary.id)
            await #expect(throws: StoreError.notFound) { try await stores.prompts.deletePrompt(id: summary.id) }
            #expect(try await stores.prompts.commands(authorID: ada.id).isEmpty)
        }
    }

    @Test(
        "a prompt is seen by its author, by everyone when shared so, by its groups' members, and by admins",
        arguments: StoreKind.allCases)
    func visibility(kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let ada = try await stores.accounts.createUser(email: "ada@example.com", passwordHash: "h", isAdmin: false)
            let bob = try await stores.accounts.createUser(email: "bob@example.com", passwordHash: "h", isAdmin: false)
            let eve = try await stores.accounts.createUser(email: "eve@example.com", passwordHash: "h", isAdmin: false)
            let staff = try await stores.groups.createGroup(name: "Staff")
            try await stores.groups.addMember(userID: bob.id, groupID: staff.id)
            var made: [Visibility: Prompt] = [:]
            for visibility in Visibility.allCases {
                made[visibility] = try await stores.prompts.createPrompt(
                    Prompt(
                        id: 0, authorID: ada.id, title: visibility.rawValue, command: visibility.rawValue, body: "b",
                        visibility: visibility, groupIDs: [staff.id]))
            }
            func sees(_ user: User, _ visibility: Visibility, isAdmin: Bool = false) async throws -> Bool {
                try await stores.prompts.prompt(id: made[visibility]!.id, visibleTo: user.id, isAdmin: isAdmin) != nil
            }
            for visibility in Visibility.allCases { #expect(try await sees(ada, visibility)) }
            var seen: [[Bool]] = []
            for user in [bob, eve] {
                seen.append([
                    try await sees(user, .private), try await sees(user, .everyone), try await sees(user, .groups),
                ])
            }
            #expect(seen == [[false, true, true], [false, true, false]])
            #expect(try await sees(eve, .private, isAdmin: true))
            #expect(
                try await stores.prompts.prompts(visibleTo: eve.id, isAdmin: false, matching: "", limit: 10)
                    .map(\.command) == ["everyone"])
        }
    }

    @Test(
        "a search matches commands and titles ignoring case, commands that start with it first; % and _ are only text",
        arguments: StoreKind.allCases)
    func matching(kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let ada = try await stores.accounts.createUser(email: "ada@example.com", passwordHash: "h", isAdmin: false)
            for (command, title) in [
                ("translate", "Translate to French"), ("fix", "Fix the grammar"), ("tr", "Short form"),
                ("zz", "100% sure"), ("a_b", "Underscore"),
            ] {
                _ = try await stores.prompts.createPrompt(
                    Prompt(id: 0, authorID: ada.id, title: title, command: command, body: "b"))
            }
            func matches(_ query: String, limit: Int = 10) async throws -> [String] {
                try await stores.prompts.prompts(visibleTo: ada.id, isAdmin: false, matching: query, limit: limit)
                    .map(\.command)
            }
            #expect(try await matches("TR") == ["tr", "translate"])
            #expect(try await matches("gram") == ["fix"])
            #expect(try await matches("") == ["a_b", "fix", "tr", "translate", "zz"])
            #expect(try await matches("", limit: 2) == ["a_b", "fix"])
            #expect(try await matches("%") == ["zz"])
            #expect(try await matches("_") == ["a_b"])
            #expect(try await matches("nothing").isEmpty)
        }
    }
}
