import Foundation
import ParleyCore
import Testing

/// Assistants, their icons and whom each is shared with, the same on every database.
@Suite struct AssistantStoreTests {
    @Test(
        "an assistant is stored with its options and starters; each update raises its version; its icon is kept apart",
        arguments: StoreKind.allCases)
    func writes(kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let ada = try await stores.accounts.createUser(email: "ada@example.com", passwordHash: "h", isAdmin: false)
            let staff = try await stores.groups.createGroup(name: "Staff")
            var options = GenerationOptions()
            options.temperature = 0.3
            var helper = try await stores.assistants.createAssistant(
                Assistant(
                    id: 0, authorID: ada.id, name: "Helper", description: "Helps", icon: "🦊", instructions: "Be kind",
                    model: "gpt-5", options: options, starters: ["Hi", "Help me"], visibility: .groups,
                    groupIDs: [staff.id]))
            #expect(helper.version == 1 && helper.options == options && helper.starters == ["Hi", "Help me"])
            #expect(helper.groupIDs == [staff.id] && !helper.hasIconImage)
            #expect(try await stores.assistants.assistant(id: helper.id) == helper)

            helper.name = "Helper 2"
            helper.visibility = .everyone
            helper = try await stores.assistants.updateAssistant(helper)
            #expect(helper.version == 2 && helper.name == "Helper 2" && helper.groupIDs.isEmpty)
            var gone = helper
            gone.id = 999
            await #expect(throws: StoreError.notFound) { _ = try await stores.assistants.updateAssistant(gone) }

            let icon = AssistantIcon(contentType: "image/png", bytes: [0x89, 0x50, 0x4E, 0x47, 0, 255])
            try await stores.assistants.setIcon(icon, assistantID: helper.id)
            #expect(try await stores.assistants.icon(assistantID: helper.id) == icon)
            #expect(try await stores.assistants.assistant(id: helper.id)?.hasIconImage == true)
            try await stores.assistants.setIcon(nil, assistantID: helper.id)
            #expect(try await stores.assistants.icon(assistantID: helper.id) == nil)
            await #expect(throws: StoreError.notFound) { try await stores.assistants.setIcon(icon, assistantID: 999) }

            #expect(try await stores.assistants.assistantCount(authorID: ada.id) == 1)
            try await stores.assistants.deleteAssistant(id: helper.id)
            await #expect(throws: StoreError.notFound) { try await stores.assistants.deleteAssistant(id: helper.id) }
            #expect(try await stores.assistants.assistantCount(authorID: ada.id) == 0)
        }
    }

    @Test(
        "a user sees their own assistants, those shared with everyone and with their groups, by name; an admin sees all",
        arguments: StoreKind.allCases)
    func visibility(kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let ada = try await stores.accounts.createUser(email: "ada@example.com", passwordHash: "h", isAdmin: false)
            let bob = try await stores.accounts.createUser(email: "bob@example.com", passwordHash: "h", isAdmin: false)
            let staff = try await stores.groups.createGroup(name: "Staff")
            let other = try await stores.groups.createGroup(name: "Other")
            try await stores.groups.addMember(userID: bob.id, groupID: staff.id)
            #expect(try await stores.assistants.groupIDs(of: bob.id) == [staff.id])
            for (name, visibility, group) in [
                ("zeta", Visibility.private, staff.id), ("Alpha", .everyone, staff.id), ("beta", .groups, staff.id),
                ("Gamma", .groups, other.id),
            ] {
                _ = try await stores.assistants.createAssistant(
                    Assistant(
                        id: 0, authorID: ada.id, name: name, model: "m", visibility: visibility, groupIDs: [group]))
            }
            #expect(
                try await stores.assistants.assistants(visibleTo: bob.id, isAdmin: false).map(\.name) == [
                    "Alpha", "beta",
                ])
            #expect(
                try await stores.assistants.assistants(visibleTo: ada.id, isAdmin: false).map(\.name) == [
                    "Alpha", "beta", "Gamma", "zeta",
                ])
            #expect(try await stores.assistants.assistants(visibleTo: bob.id, isAdmin: true).count == 4)
        }
    }
}
