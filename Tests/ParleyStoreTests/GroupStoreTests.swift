import Foundation
import ParleyCore
import Testing

/// Groups, their members, models and budgets, the same on every database.
@Suite struct GroupStoreTests {
    @Test(
        "groups are made with names unique whatever their case, listed by name, and deleted once",
        arguments: StoreKind.allCases)
    func groups(kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let staff = try await stores.groups.createGroup(name: "Staff")
            let admins = try await stores.groups.createGroup(name: "admins")
            await #expect(throws: StoreError.duplicate) { _ = try await stores.groups.createGroup(name: "STAFF") }
            #expect(try await stores.groups.groups().map(\.id) == [admins.id, staff.id])
            #expect(try await stores.groups.group(id: staff.id) == staff)
            #expect(try await stores.groups.group(id: 999) == nil)
            try await stores.groups.deleteGroup(id: admins.id)
            await #expect(throws: StoreError.notFound) { try await stores.groups.deleteGroup(id: admins.id) }
            #expect(try await stores.groups.groups() == [staff])
        }
    }

    @Test(
        "members are added once, listed by email, removed; models are set exactly, in order; budgets and spend are kept",
        arguments: StoreKind.allCases)
    func membersModelsAndSpend(kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let group = try await stores.groups.createGroup(name: "Staff")
            let bob = try await stores.accounts.createUser(email: "bob@example.com", passwordHash: "h", isAdmin: false)
            let alice = try await stores.accounts.createUser(
                email: "Alice@example.com", passwordHash: "h", isAdmin: false)
            try await stores.groups.addMember(userID: bob.id, groupID: group.id)
            try await stores.groups.addMember(userID: alice.id, groupID: group.id)
            try await stores.groups.addMember(userID: alice.id, groupID: group.id)
            await #expect(throws: StoreError.notFound) {
                try await stores.groups.addMember(userID: 999, groupID: group.id)
            }
            await #expect(throws: StoreError.notFound) {
                try await stores.groups.addMember(userID: bob.id, groupID: 999)
            }
            #expect(try await stores.groups.members(groupID: group.id) == [alice, bob])
            #expect(try await stores.groups.group(id: group.id)?.memberCount == 2)

            try await stores.groups.setModels(["gpt-5", "claude", "gpt-5"], groupID: group.id)
            #expect(try await stores.groups.group(id: group.id)?.models == ["claude", "gpt-5"])
            try await stores.groups.setModels(["o3"], groupID: group.id)
            #expect(try await stores.groups.group(id: group.id)?.models == ["o3"])
            await #expect(throws: StoreError.notFound) { try await stores.groups.setModels(["x"], groupID: 999) }

            try await stores.groups.setMonthlyBudget(3_000_000, groupID: group.id)
            #expect(try await stores.groups.group(id: group.id)?.monthlyBudgetMicros == 3_000_000)
            await #expect(throws: StoreError.notFound) { try await stores.groups.setMonthlyBudget(1, groupID: 999) }

            for (day, user, cost) in [
                ("2026-10-31", alice.id, 7), ("2026-11-02", alice.id, 500), ("2026-11-20", bob.id, 25),
            ] {
                try await stores.execute(
                    """
                    INSERT INTO usage_daily (day, user_id, model, requests, input_tokens, cached_input_tokens,
                        output_tokens, cost_micros) VALUES ('\(day)', \(user), 'm', 1, 0, 0, 0, \(cost))
                    """)
            }
            let november = try #require(UsageDay("2026-11-01"))
            #expect(try await stores.groups.spend(since: november) == [group.id: 525])
            try await stores.groups.removeMember(userID: bob.id, groupID: group.id)
            #expect(try await stores.groups.members(groupID: group.id) == [alice])
            #expect(try await stores.groups.spend(since: november) == [group.id: 500])
        }
    }

    @Test(
        "a group's budget holds members without one of their own: spent, their replies are refused; raised, they start",
        arguments: StoreKind.allCases)
    func groupBudgetHoldsItsMembers(kind: StoreKind) async throws {
        try await kind.withStores { stores in
            let group = try await stores.groups.createGroup(name: "Staff")
            let bob = try await stores.user("bob@example.com")
            try await stores.groups.addMember(userID: bob.id, groupID: group.id)
            let chat = try await stores.conversation(bob.id)
            let today = UsageDay.today
            try await stores.execute(
                """
                INSERT INTO usage_daily (day, user_id, model, requests, input_tokens, cached_input_tokens,
                    output_tokens, cost_micros) VALUES ('\(today.description)', \(bob.id), 'm', 1, 0, 0, 0, 500)
                """)
            /// Begins an exchange of Bob's.
            func send() async throws {
                _ = try await stores.chats.beginExchange(
                    conversationID: chat.id, userContent: "a question", images: [], requestID: nil, model: "m")
            }
            try await stores.groups.setMonthlyBudget(500, groupID: group.id)
            let spent = BudgetStatus(month: today.firstOfMonth, spentMicros: 500, budgetMicros: 500, group: "Staff")
            await expectStoreError(.budgetExceeded(spent)) { try await send() }
            #expect(try await stores.count("SELECT COUNT(*) FROM messages") == 0)
            try await stores.groups.setMonthlyBudget(501, groupID: group.id)
            try await send()
            #expect(try await stores.count("SELECT COUNT(*) FROM messages") == 2)
        }
    }
}
