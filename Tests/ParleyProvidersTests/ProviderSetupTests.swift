import AsyncHTTPClient
import Foundation
import Logging
import MockUpstream
import ParleyCore
import Testing

@testable import ParleyProviders

/// Building the catalog from the environment and `PARLEY_CONFIG`: which providers exist, which models are offered.
@Suite struct ProviderSetupTests {
    typealias Resolved = ProviderSetup.Resolved
    static let logger = Logger(label: "test")

    /// Writes `json` to a fresh file and returns its path.
    static func configFile(_ json: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "parley-config-\(UUID().uuidString).json"
        ).path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The setup for `environment` and, when given, a config file holding `config`.
    static func setup(_ environment: [String: String], config: String? = nil) throws -> ProviderSetup {
        try ProviderSetup(environment: environment, configPath: config.map(configFile))
    }

    /// The problem the setup is refused for.
    static func problem(_ environment: [String: String], config: String) throws -> String? {
        let path = try configFile(config)
        do throws(ProviderConfigError) {
            _ = try ProviderSetup(environment: environment, configPath: path)
            return nil
        } catch {
            #expect(error.file == path)
            return error.problem
        }
    }

    @Test func nothingConfiguredOffersOnlyTheDemo() throws {
        let catalog = try Self.setup([:]).makeCatalog(client: .shared, logger: Self.logger)
        #expect(catalog.isDemoOnly)
        #expect(catalog.models == [DemoProvider.model])
        #expect(catalog.provider(for: DemoProvider.model) is DemoProvider)
    }

    @Test func openAIKeyOffersTheBuiltInOpenAIModels() throws {
        let setup = try Self.setup(["OPENAI_API_KEY": "sk-1", "ANTHROPIC_API_KEY": ""])
        #expect(
            setup.providers == [
                Resolved(
                    id: "openai", kind: .openai, name: "OpenAI", baseURL: "https://api.openai.com/v1", apiKey: "sk-1")
            ])
        let catalog = setup.makeCatalog(client: .shared, logger: Self.logger)
        #expect(!catalog.isDemoOnly)
        #expect(catalog.models.map(\.id) == ["gpt-4o-mini", "gpt-4o", "gpt-4.1", "gpt-4.1-mini"])
        #expect(catalog.model("parley-demo") == nil)
    }

    @Test func vendorKeysOfferTheirBuiltInModels() throws {
        let setup = try Self.setup(["ANTHROPIC_API_KEY": "ak", "GEMINI_API_KEY": "gk"])
        #expect(
            setup.providers == [
                Resolved(
                    id: "anthropic", kind: .anthropic, name: "Anthropic", baseURL: "https://api.anthropic.com",
                    apiKey: "ak"),
                Resolved(
                    id: "gemini", kind: .gemini, name: "Gemini", baseURL: "https://generativelanguage.googleapis.com",
                    apiKey: "gk"),
            ])
        let catalog = setup.makeCatalog(client: .shared, logger: Self.logger)
        #expect(
            catalog.models.map(\.id) == [
                "claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-5", "claude-opus-4-1",
                "claude-sonnet-4", "claude-opus-4", "claude-3-5-haiku",
                "gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite", "gemini-2.0-flash",
            ])
        var sonnet = ModelInfo(
            id: "claude-sonnet-4", upstreamID: "claude-sonnet-4-20250514", providerID: "anthropic",
            contextWindow: 200_000, vision: true, tools: true, price: ModelPrice(input: 3, cachedInput: 0.3, output: 15)
        )
        // Anthropic takes temperatures up to 1.
        sonnet.maxTemperature = 1
        #expect(catalog.model("claude-sonnet-4") == sonnet)
        #expect(
            catalog.model("gemini-2.5-flash")
                == ModelInfo(
                    id: "gemini-2.5-flash", providerID: "gemini", contextWindow: 1_048_576,
                    vision: true, tools: true, price: ModelPrice(input: 0.3, cachedInput: 0.075, output: 2.5)))
        let claude = try #require(catalog.model("claude-opus-4").flatMap(catalog.provider(for:)) as? AnthropicProvider)
        #expect(claude.connection.name == "Anthropic")
        #expect(catalog.model("gemini-2.0-flash").flatMap(catalog.provider(for:)) is GeminiProvider)
    }

    @Test func toolsComeFromTheConfigElseTheBuiltInTableElseOff() throws {
        let setup = try Self.setup(
            ["OPENAI_API_KEY": "sk"],
            config: #"""
                {"providers": [{"id": "local", "kind": "openai", "base_url": "http://127.0.0.1:9/v1"}],
                 "models": [{"id": "qwen", "provider": "local", "tools": true}, {"id": "llama", "provider": "local"},
                            {"id": "gpt-4o", "tools": false}]}
                """#)
        let catalog = setup.makeCatalog(client: .shared, logger: Self.logger)
        #expect(catalog.model("qwen")?.tools == true)
        #expect(catalog.model("llama")?.tools == false)
        #expect(catalog.model("gpt-4o")?.tools == false)
        #expect(catalog.model("gpt-4.1")?.tools == true)
    }

    @Test func aBaseURLAloneConfiguresAProviderWithoutKey() throws {
        let setup = try Self.setup(["GEMINI_BASE_URL": "http://127.0.0.1:9/"])
        #expect(
            setup.providers == [
                Resolved(id: "gemini", kind: .gemini, name: "Gemini", baseURL: "http://127.0.0.1:9/", apiKey: nil)
            ])
        let catalog = setup.makeCatalog(client: .shared, logger: Self.logger)
        let provider = try #require(catalog.model("gemini-2.5-pro").flatMap(catalog.provider(for:)) as? GeminiProvider)
        #expect(provider.connection.baseURL == "http://127.0.0.1:9")
    }

    @Test func configOverridesTheBuiltInEntryFieldByField() throws {
        let setup = try Self.setup(
            ["OPENAI_API_KEY": "sk"],
            config: #"""
                {"models": [{"id": "gpt-4o", "price": {"output": 12}, "fallback": "gpt-4o-mini"}]}
                """#)
        let catalog = setup.makeCatalog(client: .shared, logger: Self.logger)
        #expect(catalog.models.map(\.id) == ["gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini"])
        #expect(
            catalog.defaultModel
                == ModelInfo(
                    id: "gpt-4o", providerID: "openai", contextWindow: 128_000, vision: true, tools: true,
                    price: ModelPrice(input: 2.5, cachedInput: 1.25, output: 12), fallback: "gpt-4o-mini"))
    }

    @Test func aModelOnAnotherProviderDoesNotInheritTheBuiltInEntry() throws {
        let setup = try Self.setup(
            [:],
            config: #"""
                {"providers": [{"id": "router", "base_url": "https://openrouter.ai/api/v1", "api_key_env": "ROUTER_KEY"}],
                 "models": [{"id": "gpt-4o", "provider": "router", "upstream_id": "openai/gpt-4o"}]}
                """#)
        #expect(setup.configuredModels == [ModelInfo(id: "gpt-4o", upstreamID: "openai/gpt-4o", providerID: "router")])
    }

    @Test func aStandardIDInTheFileExtendsItsEnvironmentVariables() throws {
        let setup = try Self.setup(
            ["ANTHROPIC_API_KEY": "ak", "ANTHROPIC_BASE_URL": "http://gateway"],
            config: #"{"providers": [{"id": "anthropic"}]}"#)
        #expect(
            setup.providers == [
                Resolved(id: "anthropic", kind: .anthropic, name: "Anthropic", baseURL: "http://gateway", apiKey: "ak")
            ])
        #expect(setup.warnings.isEmpty)
    }

    @Test func anotherIDNeverGetsAVendorsKey() throws {
        let setup = try Self.setup(
            ["ANTHROPIC_API_KEY": "ak"],
            config: #"""
                {"providers": [{"id": "proxy", "kind": "anthropic", "base_url": "http://proxy"}]}
                """#)
        #expect(
            setup.providers == [
                Resolved(
                    id: "anthropic", kind: .anthropic, name: "Anthropic", baseURL: "https://api.anthropic.com",
                    apiKey: "ak"),
                Resolved(id: "proxy", kind: .anthropic, name: "proxy", baseURL: "http://proxy", apiKey: nil),
            ])
        #expect(setup.warnings == ["provider “proxy” has no API key; set api_key_env in PARLEY_CONFIG"])
    }

    @Test func anUnsetKeyVariableLeavesTheProviderKeylessWithAWarning() throws {
        let config =
            #"{"providers": [{"id": "local", "base_url": "http://127.0.0.1:11434/v1", "api_key_env": "LOCAL_KEY"}]}"#
        let unset = try Self.setup(["OPENAI_API_KEY": "sk"], config: config)
        #expect(
            unset.providers.last
                == Resolved(
                    id: "local", kind: .openai, name: "local", baseURL: "http://127.0.0.1:11434/v1", apiKey: nil))
        #expect(
            unset.warnings == [
                "provider “local”: api_key_env names LOCAL_KEY, which is not set; requests go without a key"
            ])
        let set = try Self.setup(["LOCAL_KEY": "lk"], config: config)
        #expect(
            set.providers == [
                Resolved(id: "local", kind: .openai, name: "local", baseURL: "http://127.0.0.1:11434/v1", apiKey: "lk")
            ])
        #expect(set.warnings.isEmpty)
    }

    @Test func modelsMustNameAKnownProvider() throws {
        #expect(
            try Self.problem(
                [:], config: #"{"providers": [{"id": "local"}], "models": [{"id": "x", "provider": "nowhere"}]}"#)
                == "models[0] (“x”) names the provider “nowhere”, which is neither in providers nor set in the environment"
        )
        #expect(
            try Self.problem(
                ["OPENAI_API_KEY": "sk"], config: #"{"providers": [{"id": "local"}], "models": [{"id": "x"}]}"#)
                == "models[0] (“x”) names no provider, and 2 are configured")
        let single = try Self.setup([:], config: #"{"providers": [{"id": "local"}], "models": [{"id": "x"}]}"#)
        #expect(single.configuredModels == [ModelInfo(id: "x", providerID: "local")])
        #expect(
            throws: ProviderConfigError(
                file: "/nonexistent.json", problem: "cannot be read (missing, or not readable by this user)")
        ) {
            try ProviderSetup(environment: [:], configPath: "/nonexistent.json")
        }
    }

    @Test func theDemoModelIsOfferedBesideProvidersOnlyWhenTheFileAsks() throws {
        let asked = try Self.setup(
            [:], config: #"{"providers": [{"id": "local"}], "models": [{"id": "parley-demo"}, {"id": "llama3.2"}]}"#
        )
        .makeCatalog(client: .shared, logger: Self.logger)
        #expect(asked.models.map(\.id) == ["parley-demo", "llama3.2"])
        #expect(!asked.isDemoOnly)
        #expect(asked.provider(for: DemoProvider.model) is DemoProvider)
        let notAsked = try Self.setup([:], config: #"{"providers": [{"id": "local"}], "models": [{"id": "llama3.2"}]}"#)
            .makeCatalog(client: .shared, logger: Self.logger)
        #expect(notAsked.models.map(\.id) == ["llama3.2"])
    }

    @Test func discoveryAsksEveryOpenAICompatibleProvider() async throws {
        try await withMock { mock in
            try await ProviderHarness.withClient(UpstreamTimeouts(connect: .milliseconds(300))) { client in
                let setup = try Self.setup(
                    ["ANTHROPIC_API_KEY": "ak"],
                    config: #"""
                        {"providers": [{"id": "down", "base_url": "http://127.0.0.1:1/v1"},
                                       {"id": "mock", "base_url": "\#(ProviderHarness.baseURL(.openai, port: mock.port))"}],
                         "models": [{"id": "mock-fast", "provider": "down", "price": {"input": 1}}]}
                        """#)
                let catalog = setup.makeCatalog(client: client, logger: Self.logger)
                await setup.discoverModels(into: catalog, client: client, logger: Self.logger)
                let discovered = catalog.models.filter { $0.providerID == "mock" }
                #expect(
                    discovered
                        == [
                            "mock-slow", "mock-429", "mock-500", "mock-reset", "mock-stall", "mock-garbage",
                            "mock-long", "mock-empty",
                            "mock-nousage", "mock-window", "mock-length", "mock-think", "mock-think-tag", "mock-deaf",
                            "mock-cite", "mock-tools",
                        ]
                        .map { ModelInfo(id: $0, providerID: "mock", contextWindow: ModelInfo.discoveredContextWindow) }
                )
                #expect(catalog.model("mock-fast")?.providerID == "down")
                #expect(catalog.model("mock-fast")?.price.input == 1)
            }
        }
    }

    @Test(
        "each configured model streams through its own provider's wire format",
        arguments: [
            ("local-fast", "model"), ("claude-fast", "max_tokens"), ("gemini-fast", "contents"),
        ])
    func modelsStreamThroughTheirProviders(model: String, bodyKey: String) async throws {
        try await withMock { mock in
            let base = "http://127.0.0.1:\(mock.port)"
            let setup = try Self.setup(
                ["CLAUDE_KEY": "ck", "GEM_KEY": "gk"],
                config: #"""
                    {"providers": [{"id": "local", "kind": "openai", "base_url": "\#(base)/v1"},
                                   {"id": "claude", "kind": "anthropic", "base_url": "\#(base)", "api_key_env": "CLAUDE_KEY"},
                                   {"id": "gem", "kind": "gemini", "base_url": "\#(base)", "api_key_env": "GEM_KEY"}],
                     "models": [{"id": "local-fast", "provider": "local", "upstream_id": "mock-fast"},
                                {"id": "claude-fast", "provider": "claude", "upstream_id": "mock-fast"},
                                {"id": "gemini-fast", "provider": "gem", "upstream_id": "mock-fast"}]}
                    """#)
            #expect(setup.warnings.isEmpty)
            let catalog = setup.makeCatalog(client: mock.client, logger: Self.logger)
            #expect(catalog.models.map(\.id) == ["local-fast", "claude-fast", "gemini-fast"])
            let info = try #require(catalog.model(model))
            let provider = try #require(catalog.provider(for: info))
            let (chunks, error) = await ProviderHarness.collect(
                provider, ProviderHarness.request(model: info.upstreamID))
            #expect(error == nil)
            #expect(Array(chunks.dropLast()) == ProviderHarness.texts("mock-fast"))
            let body = try await ProviderHarness.lastRequest(mock)
            #expect(body[bodyKey] != nil)
        }
    }
}
