import Foundation
import ParleyCore
import ParleyTools
import Testing

/// The runner against real MCP servers (Tests/MCP/tool_server.py, the official Python SDK) over stdio and HTTP.
@Suite(.serialized) struct MCPToolRunnerTests {
    @Test func listsTheToolsUnderSafeUniqueNames() async throws {
        try await MCPTestServers.withRunner([MCPTestServers.stdio()]) { runner in
            let tools = await runner.tools(servers: ["tests"])
            let names = tools.map(\.name)
            #expect(
                Set(names).isSuperset(of: ["tests__add", "tests__lookup", "tests__sleep", "tests__fail", "tests__big"]))
            #expect(Set(names).count == names.count)
            #expect(
                names.allSatisfy { $0.count <= 64 && $0.allSatisfy { $0.isLetter || $0.isNumber || "_-".contains($0) } }
            )
            let add = try #require(tools.first { $0.name == "tests__add" })
            #expect(add.description == "Adds two numbers.")
            #expect(add.inputSchema.contains(#""required":["a","b"]"#))
            #expect(await runner.tools(servers: []).isEmpty)
            let status = try #require(await runner.servers().first)
            #expect(status.state == .connected && status.tools.contains { $0.serverName == "lookup" })
        }
    }

    @Test func callsAToolAndReportsItsErrors() async throws {
        try await MCPTestServers.withRunner([MCPTestServers.stdio()]) { runner in
            let sum = await MCPTestServers.call(runner, "tests__add", #"{"a": 2, "b": 3}"#)
            #expect(sum.content == "5" && !sum.isError)
            let record = await MCPTestServers.call(runner, "tests__lookup", #"{"key": "ada"}"#)
            #expect(record.content == "Ada Lovelace, born 1815, mathematics")
            let failed = await MCPTestServers.call(runner, "tests__fail")
            #expect(failed.isError && failed.content.contains("the tool failed on purpose"))
            let unknown = await MCPTestServers.call(runner, "tests__nothing")
            #expect(unknown.isError && unknown.content.contains("no tool tests__nothing"))
            let broken = await MCPTestServers.call(runner, "tests__add", "[1, 2")
            #expect(broken.isError && broken.content.contains("not a JSON object"))
        }
    }

    @Test func cutsABigResultAtTheLimitWithANote() async throws {
        try await MCPTestServers.withRunner([MCPTestServers.stdio()], maxResultBytes: 64 * 1_024) { runner in
            let result = await MCPTestServers.call(runner, "tests__big")
            let note = "\n[truncated: the result was 1024 KB, the first 64 KB are shown]"
            #expect(!result.isError && result.content.hasSuffix(note))
            #expect(result.content.utf8.count == 64 * 1_024 + note.utf8.count)
            #expect(result.content.hasPrefix("0123456789abcdef"))
        }
    }

    @Test func aCallPastTheTimeoutEndsPromptlyAndIsCancelledAtTheServer() async throws {
        let log = MCPTestServers.logPath()
        defer { try? FileManager.default.removeItem(atPath: log) }
        try await MCPTestServers.withRunner([MCPTestServers.stdio(cancelLog: log)], callTimeout: .seconds(1)) {
            runner in
            let clock = ContinuousClock()
            let start = clock.now
            let result = await MCPTestServers.call(runner, "tests__sleep", #"{"seconds": 30}"#)
            #expect(clock.now - start < .seconds(5))
            #expect(result.isError && result.content.contains("did not answer within 1 s"))
            try await MCPTestServers.eventually("the server saw the cancellation", seconds: 10) {
                MCPTestServers.lines(of: log).contains("cancelled")
            }
            #expect(await MCPTestServers.call(runner, "tests__add", #"{"a": 1, "b": 1}"#).content == "2")
        }
    }

    @Test func cancellingTheCallsTaskReturnsPromptlyAndTellsTheServer() async throws {
        let log = MCPTestServers.logPath()
        defer { try? FileManager.default.removeItem(atPath: log) }
        try await MCPTestServers.withRunner([MCPTestServers.stdio(cancelLog: log)]) { runner in
            let call = Task { await MCPTestServers.call(runner, "tests__sleep", #"{"seconds": 30}"#) }
            try await MCPTestServers.eventually("the sleep started", seconds: 10) {
                MCPTestServers.lines(of: log).contains("started")
            }
            let clock = ContinuousClock()
            let start = clock.now
            call.cancel()
            let result = await call.value
            #expect(clock.now - start < .seconds(3))
            #expect(result.isError && result.content.contains("cancelled"))
            try await MCPTestServers.eventually("the server saw notifications/cancelled", seconds: 10) {
                MCPTestServers.lines(of: log).contains("cancelled")
            }
        }
    }

    @Test func aServerThatDiesIsStartedAgain() async throws {
        try await MCPTestServers.withRunner([MCPTestServers.stdio()]) { runner in
            let first = try #require(Int32(await MCPTestServers.call(runner, "tests__pid").content))
            kill(first, SIGKILL)
            try await MCPTestServers.eventually("the server was noticed gone", seconds: 10) {
                await runner.servers().first?.state != .connected
            }
            let down = await MCPTestServers.call(runner, "tests__add", #"{"a": 1, "b": 2}"#)
            #expect(down.isError)
            try await MCPTestServers.eventually("the server is back") {
                await runner.servers().first?.state == .connected
            }
            #expect(await MCPTestServers.call(runner, "tests__add", #"{"a": 1, "b": 2}"#).content == "3")
            #expect(Int32(await MCPTestServers.call(runner, "tests__pid").content) != first)
        }
    }

    @Test func aChangedToolListIsFetchedAgain() async throws {
        try await MCPTestServers.withRunner([MCPTestServers.stdio()]) { runner in
            #expect(await !runner.tools(servers: ["tests"]).contains { $0.name == "tests__echo" })
            let added = await MCPTestServers.call(runner, "tests__add_tool", #"{"name": "echo"}"#)
            #expect(added.content == "added echo")
            try await MCPTestServers.eventually("the new tool is listed", seconds: 10) {
                await runner.tools(servers: ["tests"]).contains { $0.name == "tests__echo" }
            }
            #expect(await MCPTestServers.call(runner, "tests__echo", #"{"text": "hi"}"#).content == "hi")
        }
    }

    @Test func theAdminsChoicesHideToolsAndAskForConfirmation() async throws {
        var settings = MCPTestServers.stdio()
        settings.tools = ["fail": .init(enabled: false), "sleep": .init(confirm: true)]
        try await MCPTestServers.withRunner([settings]) { runner in
            let names = await runner.tools(servers: ["tests"]).map(\.name)
            #expect(!names.contains("tests__fail") && names.contains("tests__sleep"))
            #expect(runner.needsConfirmation("tests__sleep") && !runner.needsConfirmation("tests__add"))
            #expect(await MCPTestServers.call(runner, "tests__fail").content.contains("turned off"))
        }
    }

    @Test func aStdioServerThatCannotStartIsReportedUnavailable() async throws {
        let broken = MCPServerSettings(
            id: "broken", name: "Broken", transport: .stdio(command: ["/nonexistent/mcp-server"], environment: [:]))
        try await MCPTestServers.withRunner([broken], waitConnected: false) { runner in
            try await MCPTestServers.eventually("the server is reported unavailable", seconds: 10) {
                if case .unavailable = await runner.servers().first?.state { return true }
                return false
            }
            #expect(await MCPTestServers.call(runner, "broken__x").isError)
        }
    }

    @Test func worksOverStreamableHTTPWithItsHeaders() async throws {
        try await HTTPToolServer.with(token: "secret") { server in
            let settings = MCPServerSettings(
                id: "web", name: "Web tools",
                transport: .http(url: server.url, headers: ["Authorization": "Bearer secret"]))
            try await MCPTestServers.withRunner([settings], callTimeout: .seconds(1)) { runner in
                #expect(await runner.tools(servers: ["web"]).contains { $0.name == "web__lookup" })
                #expect(await MCPTestServers.call(runner, "web__add", #"{"a": 20, "b": 22}"#).content == "42")
                let big = await MCPTestServers.call(runner, "web__big")
                #expect(big.content.hasSuffix("the first 64 KB are shown]"))
                let slow = await MCPTestServers.call(runner, "web__sleep", #"{"seconds": 30}"#)
                #expect(slow.isError && slow.content.contains("did not answer"))
                _ = await MCPTestServers.call(runner, "web__add_tool", #"{"name": "echo"}"#)
                try await MCPTestServers.eventually("the new tool is listed", seconds: 10) {
                    await runner.tools(servers: ["web"]).contains { $0.name == "web__echo" }
                }
            }
            let wrongToken = MCPServerSettings(
                id: "web", name: "Web tools", transport: .http(url: server.url, headers: ["Authorization": "Bearer no"])
            )
            try await MCPTestServers.withRunner([wrongToken], waitConnected: false) { runner in
                try await MCPTestServers.eventually("the refused server is reported unavailable", seconds: 10) {
                    if case .unavailable = await runner.servers().first?.state { return true }
                    return false
                }
            }
        }
    }
}
