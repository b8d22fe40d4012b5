import AsyncHTTPClient
import Hummingbird
import Logging
import NIOCore
import ParleyCore
import ParleyDocuments
import ParleyProviders
import ParleyStore
import ParleyTools
import ServiceLifecycle

/// Builds the Parley application over `stores` (by default the SQLite database of the data folder, opened here):
/// recovers interrupted replies, configures providers, and wires the routes. `onServerRunning` gets the bound port
/// (useful with port 0 in tests).
public func buildApplication(
    settings: ServerSettings, stores: StoreSet? = nil,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> ParleyApp {
    var logger = Logger(label: "parley")
    logger.logLevel = settings.logLevel
    _ = PrometheusExport.registry
    // Unusable certificate files stop the start before anything is opened.
    let tls = try ServerTLS.configuration(settings)
    let stores = try await stores ?? openDatabase(settings, logger: logger)
    let secret = try await prepare(stores, settings, logger: logger)
    let accounts = stores.accounts
    let chatStore = stores.chat
    let timeouts = UpstreamTimeouts(
        connect: settings.upstreamConnectTimeout, firstToken: settings.upstreamFirstTokenTimeout,
        betweenTokens: settings.upstreamIdleTimeout)
    // A bad PARLEY_CONFIG stops the start here, with a message naming the file and the problem.
    let providers = try ProviderSetup(
        environment: settings.environment, configPath: settings.providerConfigPath,
        timeouts: timeouts, demoTokenDelay: settings.demoTokenDelay)
    let toolServers = try ToolRunnerService.servers(configPath: settings.providerConfigPath)
    let budget = FileDescriptorBudget.raisingProcessLimit(multiplexed: tls != nil)
    var generationSettings = settings.generation
    let replyLimit = generationSettings.maxRunningReplies ?? budget.replies
    generationSettings.maxRunningReplies = replyLimit
    let client = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: try upstreamClientConfiguration(settings, timeouts: timeouts, replies: replyLimit))
    let catalog = providers.makeCatalog(client: client, logger: logger)
    let answered = await ModelDiscoveryService.discoverAtStart(
        providers, into: catalog, client: client, logger: logger,
        within: settings.modelDiscoveryWait)

    let pages: PageRenderer
    do {
        try settings.requireFolders()
        pages = try await PageRenderer(
            templatesDirectory: settings.templatesDirectory, catalog: catalog,
            assets: try StaticAssets(directory: settings.publicDirectory))
    } catch {
        // A client dropped without a shutdown traps, which would hide this error (templates not found, say).
        try? await client.shutdown()
        throw error
    }
    let connections = ConnectionLimit(maximum: settings.maxConnections ?? budget.connections)
    logger.info(
        "holding connections and replies within the open-file limit",
        metadata: [
            "limit": "\(budget.limit)", "connections": "\(connections.maximum)", "replies": "\(replyLimit)",
        ])
    let sessions = await SessionAuthority(
        secret: secret, accounts: accounts, lifetime: settings.sessionLifetime, now: settings.wallClock)
    let csrf = CSRFTokens(secret: secret)
    let singleSignOn = settings.singleSignOn.map { sso in
        SingleSignOnController(
            provider: OpenIDProvider(settings: sso, client: client, logger: logger),
            pending: PendingSignIns(store: accounts),
            accounts: SingleSignOnAccounts(
                store: accounts, signupMode: settings.signup, adminGroups: Set(sso.adminGroups), logger: logger),
            sessions: sessions, csrf: csrf, now: settings.wallClock,
            starts: SlidingWindowLimiter(name: "sso-start", limit: 30, window: 60, ledger: stores.throttles))
    }
    let documents = stores.documents
    let documentIntake = DocumentIntake(
        store: documents, extractor: DocumentExtractor(maxBytes: settings.maxDocumentBytes),
        concurrency: System.coreCount, logger: logger)
    let tools =
        toolServers.isEmpty
        ? nil
        : MCPToolRunner(
            servers: toolServers, callTimeout: settings.toolTimeout, maxResultBytes: settings.toolResultMaxBytes,
            http: client, logger: logger)
    let toolChoices = stores.toolChoices
    if let tools {
        // The admin page's choices win over PARLEY_CONFIG's.
        for choice in try await toolChoices.toolChoices() { tools.apply(choice) }
    }
    let generations = GenerationManager(
        store: chatStore, documents: documents, tools: tools, relay: stores.relay, catalog: catalog,
        settings: generationSettings, logger: logger)
    let services = AppServices(
        settings: settings, stores: stores, accounts: accounts,
        chat: ChatService(store: chatStore, generations: generations, catalog: catalog, logger: logger),
        shares: ShareService(
            store: stores.shares, chats: chatStore, catalog: catalog,
            tokens: DigestShareTokens(), logger: logger),
        sessions: sessions, csrf: csrf,
        accountService: AccountService(
            accounts: accounts, hasher: PasswordHasher(cost: settings.bcryptCost), signupMode: settings.signup,
            signInThrottle: LoginThrottle(ledger: stores.throttles),
            signUpThrottle: settings.signupRateLimit.map {
                SlidingWindowLimiter(name: "sign-up", limit: $0, window: 300, ledger: stores.throttles)
            },
            passwordSignIn: settings.passwordLogin, logger: logger),
        pages: pages, singleSignOn: singleSignOn,
        eventStreams: EventStreamLimit(maximum: settings.maxEventStreamsPerUser),
        documentIntake: documentIntake, documents: documents, tools: tools, toolChoices: toolChoices)

    let router = buildRouter(services)
    // The upstream client's users come after it: a service group stops its services in reverse order.
    var httpServices: [any Service] = [
        HTTPClientService(client: client),
        DocumentIntakeService(intake: documentIntake),
        ModelDiscoveryService(
            providers: providers, catalog: catalog, client: client, interval: settings.modelRefreshInterval,
            retryDelay: settings.modelRetryDelay, answeredAtStart: answered, logger: logger),
    ]
    if let tools { httpServices.append(ToolRunnerService(runner: tools)) }
    if let singleSignOn {
        httpServices.append(
            SingleSignOnDiscoveryService(provider: singleSignOn.provider, retryDelay: settings.singleSignOnRetryDelay))
    }
    let http = Application(
        responder: ChildTaskResponder(inner: router.buildResponder()),
        server: connections.server(
            tls: tls, handshakeTimeout: settings.tlsHandshakeTimeout, http2IdleTimeout: settings.http2IdleTimeout,
            idleTimeout: settings.idleTimeout),
        configuration: .init(
            address: .hostname(settings.host, port: settings.port), serverName: "Parley", backlog: 4096),
        services: httpServices,
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? settings.port) },
        logger: logger)
    return ParleyApp(
        http: http, generations: GenerationService(manager: generations), database: stores.database,
        routes: router.routes.map(\.description), logger: logger)
}

/// The routes and middleware, outermost first: the client's address, the request log, gzip, security headers, unknown
/// methods refused, request metrics, error pages;
/// then, for every route but the health and metrics probes and the static files (which have no users), identity and
/// CSRF. (A Hummingbird router wraps each route in the middleware added before it.)
func buildRouter(_ services: AppServices) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    router.addMiddleware {
        ClientAddressMiddleware(
            proxies: services.settings.trustedProxies, cookieSecure: services.settings.cookieSecure,
            secureWithoutProxy: services.settings.usesSecureCookies)
        RequestLogMiddleware()
        CompressionMiddleware()
        SecurityHeadersMiddleware()
        KnownMethodMiddleware()
        MetricsMiddleware()
        ErrorMiddleware(pages: services.pages)
    }
    HealthController(database: services.stores.database).addRoutes(to: router)
    MetricsController(
        generations: services.chat.generations, database: services.stores.database,
        token: services.settings.metricsToken
    ).addRoutes(to: router)
    StaticAssetController(assets: services.pages.assets).addRoutes(to: router)
    let apiKeys = services.stores.apiKeys
    router.addMiddleware {
        AuthenticationMiddleware(
            sessions: services.sessions,
            apiKeys: APIKeyAuthority(store: apiKeys, now: services.settings.wallClock))
        CSRFMiddleware(tokens: services.csrf)
        SendThrottleMiddleware(perMinute: services.settings.sendRateLimit, ledger: services.stores.throttles)
        ShareGuessThrottleMiddleware(ledger: services.stores.throttles)
    }
    AuthController(
        settings: services.settings, accountService: services.accountService, sessions: services.sessions,
        csrf: services.csrf, pages: services.pages, singleSignOn: services.singleSignOn?.provider
    ).addRoutes(to: router)
    services.singleSignOn?.addRoutes(to: router)
    let assistants = AssistantService(
        store: services.stores.assistants, chat: services.chat,
        usersMayShare: services.settings.userSharing)
    let knowledge = KnowledgeService(
        store: services.stores.knowledge, documents: services.documents)
    let knowledgeUpload = KnowledgeUpload(intake: services.documentIntake, limit: services.settings.documentLimit)
    let toolServers = ToolServerChoices(tools: services.tools)
    ConversationController(
        settings: services.settings, chat: services.chat, assistants: assistants, knowledge: knowledge,
        toolServers: toolServers, pages: services.pages
    ).addRoutes(to: router)
    let keys = APIKeysController(store: apiKeys, pages: services.pages, now: services.settings.wallClock)
    keys.addRoutes(to: router)

    let documentUploads = DocumentUploads(intake: services.documentIntake, documents: services.documents)
    ReplyController(
        settings: services.settings, chat: services.chat, eventStreams: services.eventStreams,
        documents: documentUploads
    ).addRoutes(to: router)
    APIController(
        chat: services.chat, assistants: assistants, knowledge: knowledge, toolServers: toolServers,
        pages: services.pages, uploadLimits: services.settings.uploadLimits, documents: documentUploads
    ).addRoutes(to: router)
    AssistantsAPIController(assistants: assistants, knowledge: knowledge).addRoutes(to: router)
    AssistantIconController(assistants: assistants).addRoutes(to: router)
    AssistantsController(
        assistants: assistants, chat: services.chat, knowledge: knowledge,
        groups: services.stores.groups, pages: services.pages
    ).addRoutes(to: router)
    KnowledgeController(knowledge: knowledge, upload: knowledgeUpload, pages: services.pages).addRoutes(to: router)
    KnowledgeAPIController(knowledge: knowledge, upload: knowledgeUpload).addRoutes(to: router)
    let prompts = PromptService(
        store: services.stores.prompts, usersMayShare: services.settings.userSharing)
    PromptsAPIController(prompts: prompts, chat: services.chat).addRoutes(to: router)
    PromptsController(
        prompts: prompts, chat: services.chat, groups: services.stores.groups,
        pages: services.pages
    ).addRoutes(to: router)
    OpenAICompatibleController(
        completions: CompletionService(
            chat: services.chat, generations: services.chat.generations,
            store: services.stores.apiCompletions),
        settings: services.settings
    ).addRoutes(to: router)
    SearchController(chat: services.chat, pages: services.pages).addRoutes(to: router)
    PinArchiveController(chat: services.chat).addRoutes(to: router)
    ExportController(chat: services.chat).addRoutes(to: router)
    SettingsController(
        accountService: services.accountService, csrf: services.csrf, accounts: services.accounts,
        chat: services.chat, pages: services.pages
    ).addRoutes(to: router)
    AccountController(
        accountService: services.accountService, sessions: services.sessions, csrf: services.csrf,
        pages: services.pages
    ).addRoutes(to: router)
    let invites = InviteService(
        store: services.stores.accounts, accounts: services.accountService,
        now: services.settings.wallClock)
    InviteController(invites: invites, sessions: services.sessions, csrf: services.csrf, pages: services.pages)
        .addRoutes(to: router)
    ShareController(shares: services.shares, pages: services.pages).addRoutes(to: router)
    AttachmentController(chat: services.chat, shares: services.shares).addRoutes(to: router)
    ToolDecisionController(chat: services.chat).addRoutes(to: router)
    DocumentController(
        chat: services.chat, intake: services.documentIntake, documents: services.documents,
        limit: services.settings.documentLimit
    ).addRoutes(to: router)
    let admin = router.group("admin").add(middleware: AdminOnlyMiddleware())
    let usage = services.stores.usage
    UsageAPIController(chat: services.chat, usage: usage).addRoutes(to: router)
    keys.addAdminRoutes(to: admin)
    let groups = services.stores.groups
    AdminDashboardController(pages: services.pages, usage: usage, groups: groups).addRoutes(to: admin)
    AdminUsersController(
        accountService: services.accountService, accounts: services.accounts, chat: services.chat, invites: invites,
        pages: services.pages, usage: usage, users: services.stores.accounts
    )
    .addRoutes(to: admin)
    AdminModelsController(chat: services.chat, pages: services.pages, usage: usage).addRoutes(to: admin)
    AdminToolsController(tools: services.tools, choices: services.toolChoices, pages: services.pages)
        .addRoutes(to: admin)
    AdminGroupsController(
        accounts: services.accounts, chat: services.chat, groups: groups,
        pages: services.pages
    ).addRoutes(to: admin)
    return router
}

/// Opens the SQLite database of the data folder; a full disk stops the start with `DiskFullAtStartup`.
private func openDatabase(_ settings: ServerSettings, logger: Logger) throws -> StoreSet {
    do throws(StoreError) {
        let database = try ParleyDatabase(directory: settings.dataDirectory)
        for path in database.tightenedPermissions {
            logger.notice(
                "made readable by Parley's user alone (it holds the session key)", metadata: ["path": "\(path)"])
        }
        return StoreSet(sqlite: database)
    } catch {
        if error == .diskFull { throw DiskFullAtStartup(dataDirectory: settings.dataDirectory) }
        throw error
    }
}

/// Writes what every start writes: the replies a previous stop interrupted are marked so, the default storage quota
/// is set and, on the first start, the session key is stored. Returns the session key; a full disk stops the start
/// with `DiskFullAtStartup`.
private func prepare(_ stores: StoreSet, _ settings: ServerSettings, logger: Logger) async throws -> String {
    do throws(StoreError) {
        let interrupted = try await stores.chat.interruptUnfinishedReplies()
        if interrupted > 0 {
            logger.notice("marked replies interrupted by a previous stop", metadata: ["count": "\(interrupted)"])
        }
        try await stores.accounts.setDefaultStorageQuota(settings.userStorageBytes)
        if let secret = settings.jwtSecret, !secret.isEmpty { return secret }
        return try await stores.accounts.setting("jwt_secret") { RandomToken.make(bytes: 32) }
    } catch {
        if error == .diskFull { throw DiskFullAtStartup(dataDirectory: settings.dataDirectory) }
        throw error
    }
}
