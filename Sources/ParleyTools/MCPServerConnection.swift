import AsyncHTTPClient
import Foundation
import Logging
import MCP
import ParleyCore

/// Parley's connection to one MCP server: it starts the server (or reaches its address), keeps its tool list (fetched
/// at start and on `notifications/tools/list_changed`), runs calls with a timeout and cancellation, and starts it again
/// with a growing pause (0.5 s doubling, at most `maxBackoff`) whenever it goes away, until its task is cancelled.
actor MCPServerConnection {
    /// The longest pause before starting a server again.
    static let maxBackoff = Duration.seconds(30)
    /// How long connecting and listing tools may take.
    static let setupTimeout = Duration.seconds(30)

    let settings: MCPServerSettings
    private let http: HTTPClient
    private let callTimeout: Duration
    private let logger: Logger
    private var client: Client?
    private var tools: [Tool] = []
    private var state = MCPServerStatus.State.connecting
    /// Where a call whose waiting was given up (timed out or cancelled) leaves its request, for the running session
    /// to cancel at the server from a task that is not cancelled.
    private var abandoned: AsyncStream<ID>.Continuation?

    init(settings: MCPServerSettings, http: HTTPClient, callTimeout: Duration, logger: Logger) {
        self.settings = settings
        self.http = http
        self.callTimeout = callTimeout
        var logger = logger
        logger[metadataKey: "mcp_server"] = .string(settings.id)
        self.logger = logger
    }

    /// The server's tools now (none while it is not connected).
    var currentTools: [Tool] { client == nil ? [] : tools }

    /// The server's state and tools, for the admin page.
    func status() -> MCPServerStatus {
        MCPServerStatus(
            id: settings.id, name: settings.name, enabledByDefault: settings.enabledByDefault, state: state,
            tools: tools.map { tool in
                let choice = settings.choice(for: tool.name)
                return .init(
                    name: ToolNames.exposed(server: settings.id, tool: tool.name), serverName: tool.name,
                    description: tool.description ?? "", enabled: choice.enabled, confirm: choice.confirm)
            })
    }

    /// Keeps the server connected until the task is cancelled, then ends it.
    func run() async {
        var failures = 0
        // Bounded: each pass lasts a session or fails, then pauses; the loop ends with the task.
        while !Task.isCancelled {
            let (reason, connected) = await session()
            guard !Task.isCancelled else { break }
            failures = connected ? 1 : failures + 1
            state = .unavailable(reason)
            let pause = min(.milliseconds(500) * (1 << min(failures - 1, 10)), Self.maxBackoff)
            logger.warning("MCP server unavailable, retrying", metadata: ["reason": "\(reason)", "in": "\(pause)"])
            try? await Task.sleep(for: pause)
        }
    }

    /// Connects, serves until the server goes away, and answers why it ended and whether it had connected.
    private func session() async -> (reason: String, connected: Bool) {
        let link: any MCPLink
        do {
            link = try openLink()
        } catch {
            return ("could not be started: \(error)", false)
        }
        let client = Client(name: "parley", version: "1")
        let (changes, changed) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await client.onNotification(ToolListChangedNotification.self) { _ in changed.yield() }
        let setup = await Deadline.run(Self.setupTimeout, stop: link.ended) {
            do {
                let result = try await client.connect(transport: link.transport)
                await link.initialized(protocolVersion: result.protocolVersion)
                return Result<[Tool], Error>.success(try await Self.listTools(client))
            } catch {
                return .failure(error)
            }
        } interrupt: {
            await client.disconnect()
        }
        let tools: [Tool]
        switch setup {
        case .finished(.success(let list)) where !link.ended.isOpen:
            tools = list
        case .finished(.failure(let error)) where !link.ended.isOpen:
            await end(client, link)
            return ("could not connect: \(Self.describe(error))", false)
        default:
            let ended = link.ended.isOpen ? await link.waitUntilClosed() : nil
            await end(client, link)
            return (ended ?? (Task.isCancelled ? "stopped" : "did not answer MCP's initialization in time"), false)
        }
        let (abandonedRequests, abandoned) = AsyncStream.makeStream(of: ID.self)
        (self.client, self.tools, self.abandoned, state) = (client, tools, abandoned, .connected)
        logger.info("MCP server connected", metadata: ["tools": "\(tools.count)"])
        let reason = await withTaskGroup(of: String?.self) { group in
            group.addTask { await link.waitUntilClosed() }
            group.addTask {
                for await _ in changes { await self.refresh(client) }
                return nil
            }
            group.addTask {
                for await id in abandonedRequests { try? await client.cancelRequest(id, reason: "abandoned") }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? "stopped"
        }
        await end(client, link)
        return (reason, true)
    }

    private func openLink() throws -> any MCPLink {
        switch settings.transport {
        case .stdio(let command, let environment):
            return try StdioLink(command: command, environment: environment, logger: logger)
        case .http(let url, let headers):
            return HTTPLink(
                url: url, headers: headers, client: http, headTimeout: callTimeout + .seconds(30), logger: logger)
        }
    }

    /// Disconnects the client (every request still waiting fails) and ends the link.
    private func end(_ client: Client, _ link: any MCPLink) async {
        (self.client, abandoned) = (nil, nil)
        await client.disconnect()
        await link.close()
    }

    /// Fetches the tool list again after the server said it changed.
    private func refresh(_ client: Client) async {
        guard let tools = try? await Self.listTools(client) else { return }
        self.tools = tools
        logger.info("MCP server's tool list changed", metadata: ["tools": "\(tools.count)"])
    }

    /// Every page of the server's tool list (at most 100 pages).
    private static func listTools(_ client: Client) async throws -> [Tool] {
        var tools: [Tool] = []
        var cursor: String?
        for _ in 0..<100 {
            let page = try await client.listTools(cursor: cursor)
            tools += page.tools
            cursor = page.nextCursor
            if cursor == nil { break }
        }
        return tools
    }

    /// Calls the server's tool `name` with `arguments`; throws a short message for the model when it cannot.
    func call(_ name: String, arguments: [String: Value]) async throws(ToolCallFailure) -> CallTool.Result {
        guard let client else {
            if case .unavailable(let reason) = state {
                throw .init("the server \(settings.name) is unavailable: \(reason)")
            }
            throw .init("the server \(settings.name) is not connected yet")
        }
        guard tools.contains(where: { $0.name == name }) else {
            throw .init("the server \(settings.name) has no tool \(name)")
        }
        let abandon = abandoned
        let context: RequestContext<CallTool.Result>
        do {
            context = try await client.send(CallTool.request(.init(name: name, arguments: arguments)))
        } catch {
            throw .init("the server \(settings.name) could not be reached: \(error)")
        }
        let outcome = await Deadline.run(callTimeout) {
            do {
                return Result<CallTool.Result, Error>.success(try await context.value)
            } catch {
                return .failure(error)
            }
        } interrupt: {
            abandon?.yield(context.requestID)
        }
        switch outcome {
        case .finished(.success(let result)):
            return result
        case .finished(.failure(let error)):
            throw .init(Self.describe(error))
        case .interrupted where Task.isCancelled:
            throw .init("the call was cancelled")
        case .interrupted:
            throw .init("the tool did not answer within \(callTimeout.components.seconds) s")
        }
    }

    /// An SDK error as a short sentence.
    private static func describe(_ error: Error) -> String {
        switch error {
        case let error as MCPError: error.localizedDescription
        case is CancellationError: "the call was cancelled"
        default: "\(error)"
        }
    }
}

/// Why a tool call gave no result: a short message for the model and the transcript.
struct ToolCallFailure: Error {
    var message: String

    init(_ message: String) {
        self.message = message
    }
}
