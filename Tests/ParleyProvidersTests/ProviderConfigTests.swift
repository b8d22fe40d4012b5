import Foundation
import Testing

@testable import ParleyProviders

/// Reading `PARLEY_CONFIG`: what a good file gives, and the exact message of each kind of bad file.
@Suite struct ProviderConfigTests {
    /// Decodes `text` as the contents of `/etc/parley.json`.
    static func decode(_ text: String) throws(ProviderConfigError) -> ProviderConfig {
        try ProviderConfig.decode(Data(text.utf8), file: "/etc/parley.json")
    }

    /// The problem `text` is refused for (nil when accepted).
    static func problem(_ text: String) -> String? {
        do throws(ProviderConfigError) {
            _ = try decode(text)
            return nil
        } catch {
            #expect(error.file == "/etc/parley.json")
            return error.problem
        }
    }

    @Test func fullConfigReadsEveryKey() throws {
        let config = try Self.decode(
            """
            {
              "providers": [
                {"id": "local", "kind": "openai", "base_url": "http://127.0.0.1:11434/v1", "api_key_env": "LOCAL_KEY"},
                {"id": "anthropic", "kind": "anthropic", "api_key_env": "ANTHROPIC_API_KEY"},
                {"id": "vertex", "kind": "gemini", "base_url": "https://gemini.example.com"}
              ],
              "models": [
                {"id": "llama3.2", "provider": "local", "context_window": 131072, "vision": false,
                 "price": {"input": 0, "cached_input": 0, "output": 0}, "fallback": null},
                {"id": "sonnet", "provider": "anthropic", "upstream_id": "claude-sonnet-4-20250514", "context_window": 200000,
                 "vision": true, "price": {"input": 3, "cached_input": 0.3, "output": 15}, "fallback": "llama3.2"}
              ],
              "limits": {"ignored": "by the provider setup"}
            }
            """)
        #expect(
            config.providers == [
                .init(id: "local", kind: .openai, baseURL: "http://127.0.0.1:11434/v1", apiKeyEnv: "LOCAL_KEY"),
                .init(id: "anthropic", kind: .anthropic, baseURL: nil, apiKeyEnv: "ANTHROPIC_API_KEY"),
                .init(id: "vertex", kind: .gemini, baseURL: "https://gemini.example.com", apiKeyEnv: nil),
            ])
        #expect(
            config.models == [
                .init(
                    id: "llama3.2", provider: "local", upstreamID: nil, contextWindow: 131_072, vision: false,
                    price: .init(input: 0, cachedInput: 0, output: 0), fallback: nil),
                .init(
                    id: "sonnet", provider: "anthropic", upstreamID: "claude-sonnet-4-20250514", contextWindow: 200_000,
                    vision: true,
                    price: .init(input: 3, cachedInput: 0.3, output: 15), fallback: "llama3.2"),
            ])
    }

    @Test func minimalConfigsAreAccepted() throws {
        #expect(try Self.decode("{}") == ProviderConfig(providers: [], models: []))
        let onlyID = try Self.decode(#"{"providers": [{"id": "ollama"}], "models": [{"id": "qwen3"}]}"#)
        #expect(onlyID.providers == [.init(id: "ollama", kind: nil, baseURL: nil, apiKeyEnv: nil)])
        #expect(
            onlyID.models == [
                .init(
                    id: "qwen3", provider: nil, upstreamID: nil, contextWindow: nil, vision: nil, price: nil,
                    fallback: nil)
            ])
    }

    @Test func malformedJSONIsRefused() {
        #expect(
            Self.problem(#"{"providers": [{"id": "a",}"#)
                == "is not valid JSON (Unexpected end of file during JSON parse.)")
        #expect(Self.problem("") == "is not valid JSON (Unexpected end of file during JSON parse.)")
        #expect(Self.problem(#"["providers"]"#) == "the file must be an object")
    }

    @Test func unknownKindIsRefusedWithTheKnownOnes() {
        #expect(
            Self.problem(#"{"providers": [{"id": "a"}, {"id": "b", "kind": "cohere"}]}"#)
                == "providers[1].kind: unknown kind “cohere” (expected openai, anthropic or gemini)")
    }

    @Test func missingIDIsRefused() {
        #expect(Self.problem(#"{"providers": [{"kind": "openai"}]}"#) == "providers[0].id is missing")
        #expect(Self.problem(#"{"models": [{"id": "a"}, {"provider": "p"}]}"#) == "models[1].id is missing")
        #expect(Self.problem(#"{"providers": [{"id": null}]}"#) == "providers[0].id must not be null")
        #expect(Self.problem(#"{"providers": [{"id": ""}]}"#) == "providers[0].id is empty")
    }

    @Test func wrongTypesAreNamed() {
        #expect(
            Self.problem(#"{"models": [{"id": "a", "context_window": "big"}]}"#)
                == "models[0].context_window must be a number")
        #expect(
            Self.problem(#"{"models": [{"id": "a", "vision": "yes"}]}"#) == "models[0].vision must be true or false")
        #expect(
            Self.problem(#"{"models": [{"id": "a", "price": {"input": "1$"}}]}"#)
                == "models[0].price.input must be a number")
        #expect(Self.problem(#"{"providers": {"id": "a"}}"#) == "providers must be a list")
        #expect(Self.problem(#"{"providers": [{"id": 7}]}"#) == "providers[0].id must be a string")
    }

    @Test func impossibleValuesAreRefused() {
        #expect(
            Self.problem(#"{"models": [{"id": "a", "context_window": 1.5}]}"#)
                == "models[0].context_window must be a positive whole number")
        #expect(
            Self.problem(#"{"models": [{"id": "a", "context_window": 0}]}"#)
                == "models[0].context_window must be a positive whole number")
        #expect(
            Self.problem(#"{"models": [{"id": "a", "price": {"output": -1}}]}"#)
                == "models[0].price.output must not be negative")
        #expect(
            Self.problem(#"{"providers": [{"id": "a", "base_url": "localhost:11434"}]}"#)
                == "providers[0].base_url must start with http:// or https://")
        #expect(Self.problem(#"{"providers": [{"id": "a"}, {"id": "a"}]}"#) == "providers[1].id “a” is used twice")
        #expect(Self.problem(#"{"models": [{"id": "m"}, {"id": "m"}]}"#) == "models[1].id “m” is used twice")
        #expect(
            Self.problem(#"{"providers": [{"id": "a", "api_key_env": ""}]}"#) == "providers[0].api_key_env is empty")
    }

    @Test func unreadableFileIsNamed() {
        #expect(
            throws: ProviderConfigError(
                file: "/nonexistent/parley.json", problem: "cannot be read (missing, or not readable by this user)")
        ) {
            try ProviderConfig.load(path: "/nonexistent/parley.json")
        }
        #expect(
            ProviderConfigError(file: "/etc/parley.json", problem: "providers[0].id is missing").description
                == "PARLEY_CONFIG file /etc/parley.json: providers[0].id is missing")
    }
}
