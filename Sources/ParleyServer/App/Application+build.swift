import AsyncHTTPClient
import Hummingbird
import Logging
import NIOCore
import ParleyCore
import ParleyProviders
import ParleyStore

/// Builds the Parley application: opens the database, recovers interrupted replies, configures providers,
/// and wires the routes. `onServerRunning` gets the bound port (useful with port 0 in tests).
public func buildApplication(settings: ServerSettings,
                             onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws -> some ApplicationProtocol {
    var logger = Logger(label: "parley")
    logger.logLevel = settings.logLevel
    let database = try ParleyDatabase(directory: settings.dataDirectory)
    let accounts = SQLiteAccountStore(database: database)
    let chatStore = SQLiteChatStore(database: database)
    let interrupted = try await chatStore.interruptUnfinishedReplies()
    if interrupted > 0 { logger.notice("marked replies interrupted by a previous stop", metadata: ["count": "\(interrupted)"]) }

    var secret = settings.jwtSecret ?? ""
    if secret.isEmpty { secret = try await accounts.setting("jwt_secret") { RandomToken.make(bytes: 32) } }
    let client = makeUpstreamClient(settings: settings)
    let providers = ProviderSetup(environment: settings.environment, client: client, demoTokenDelay: settings.demoTokenDelay)
    let catalog = providers.makeCatalog()
    await providers.discoverModels(into: catalog, logger: logger)

    let generations = GenerationManager(store: chatStore, catalog: catalog, settings: settings.generation, logger: logger)
    let services = AppServices(
        settings: settings, database: database, accounts: accounts,
        chat: ChatService(store: chatStore, generations: generations, catalog: catalog, logger: logger),
        sessions: await SessionAuthority(secret: secret, accounts: accounts, lifetime: settings.sessionLifetime),
        hasher: PasswordHasher(cost: settings.bcryptCost), throttle: LoginThrottle(),
        pages: try await PageRenderer(templatesDirectory: settings.templatesDirectory, catalog: catalog))

    return Application(
        router: buildRouter(services),
        configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "Parley", backlog: 4096),
        services: [GenerationService(manager: generations), HTTPClientService(client: client)],
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? settings.port) },
        logger: logger)
}

/// The routes and middleware, outermost first: security headers, error pages, static files, identity, CSRF.
func buildRouter(_ services: AppServices) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    router.addMiddleware {
        SecurityHeadersMiddleware()
        ErrorMiddleware(pages: services.pages)
        FileMiddleware(services.settings.publicDirectory, urlBasePath: "/static",
                       cacheControl: .init([(MediaType(type: .any), [.noCache])]), logger: Logger(label: "parley.static"))
        AuthenticationMiddleware(sessions: services.sessions)
        CSRFMiddleware(secureCookies: services.settings.usesSecureCookies)
    }
    HealthController(database: services.database).addRoutes(to: router)
    MetricsController(generations: services.chat.generations).addRoutes(to: router)
    AuthController(services: services).addRoutes(to: router)
    ConversationController(services: services).addRoutes(to: router)
    ReplyController(services: services).addRoutes(to: router)
    APIController(services: services).addRoutes(to: router)
    return router
}

/// The client for upstream providers: many connections per host, and an idle timeout for stalled streams.
private func makeUpstreamClient(settings: ServerSettings) -> HTTPClient {
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 10_000)
    configuration.timeout = .init(connect: .seconds(10), read: .nanoseconds(Int64(settings.upstreamIdleTimeout.components.seconds) * 1_000_000_000
        + settings.upstreamIdleTimeout.components.attoseconds / 1_000_000_000))
    configuration.decompression = .disabled
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
}
