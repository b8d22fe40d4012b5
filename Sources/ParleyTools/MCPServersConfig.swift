import Foundation
import ParleyCore

/// An `mcp_servers` entry Parley cannot use: the place (`mcp_servers[1] (github).command`) and what is wrong there.
public struct MCPConfigError: Error, Equatable, CustomStringConvertible {
    public var place: String
    public var problem: String

    /// Creates an error.
    public init(place: String, problem: String) {
        self.place = place
        self.problem = problem
    }

    public var description: String { "\(place): \(problem)" }
}

/// Reads the `mcp_servers` array of `PARLEY_CONFIG`. Each entry is `{"id", "name", "transport": "stdio", "command":
/// [program, arguments…], "env": {…}}` or `{"id", "name", "transport": "http", "url", "headers": {…}}`, with
/// optionally `"enabled_by_default"` (true unless false) and `"tools": {"tool name": {"enabled": false, "confirm":
/// true}}`. Ids are unique, 1 to 32 letters, digits, `-` or `_` without `__`; `name` defaults to the id; a key not
/// listed here is refused, so that a typo is not silently ignored.
public enum MCPServersConfig {
    /// The servers of a whole `PARLEY_CONFIG` file (none when it has no `mcp_servers`).
    public static func parse(configFile data: Data) throws(MCPConfigError) -> [MCPServerSettings] {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw MCPConfigError(place: "PARLEY_CONFIG", problem: "is not valid JSON")
        }
        guard let file = object as? [String: Any] else {
            throw MCPConfigError(place: "PARLEY_CONFIG", problem: "must be a JSON object")
        }
        return try file["mcp_servers"].map { value throws(MCPConfigError) in try parse(value) } ?? []
    }

    /// The servers of a decoded (`JSONSerialization`) `mcp_servers` value.
    public static func parse(_ value: Any) throws(MCPConfigError) -> [MCPServerSettings] {
        guard let entries = value as? [Any] else {
            throw MCPConfigError(place: "mcp_servers", problem: "must be an array of servers")
        }
        var servers: [MCPServerSettings] = []
        for (index, entry) in entries.enumerated() {
            let server = try Entry(index: index, value: entry).settings()
            if servers.contains(where: { $0.id == server.id }) {
                throw MCPConfigError(place: "mcp_servers[\(index)] (\(server.id)).id", problem: "is used twice")
            }
            servers.append(server)
        }
        return servers
    }

    /// One entry being read, which knows its place for the errors.
    private struct Entry {
        static let keys: Set<String> = [
            "id", "name", "transport", "command", "env", "url", "headers", "enabled_by_default", "tools",
        ]

        var index: Int
        var fields: [String: Any]
        var label: String

        init(index: Int, value: Any) throws(MCPConfigError) {
            self.index = index
            guard let fields = value as? [String: Any] else {
                throw MCPConfigError(place: "mcp_servers[\(index)]", problem: "must be an object")
            }
            self.fields = fields
            self.label = "mcp_servers[\(index)]" + ((fields["id"] as? String).map { " (\($0))" } ?? "")
        }

        func settings() throws(MCPConfigError) -> MCPServerSettings {
            if let unknown = fields.keys.sorted().first(where: { !Self.keys.contains($0) }) {
                throw failure(unknown, "is not a known key (\(Self.keys.sorted().joined(separator: ", ")))")
            }
            let id = try string("id")
            guard (1...32).contains(id.count), id.unicodeScalars.allSatisfy(ToolNames.isAllowed),
                !id.contains(ToolNames.separator)
            else {
                throw failure("id", "must be 1 to 32 letters, digits, “-” or “_”, without “__”")
            }
            return MCPServerSettings(
                id: id, name: try optional("name", as: String.self) ?? id, transport: try transport(),
                enabledByDefault: try optional("enabled_by_default", as: Bool.self) ?? true, tools: try tools())
        }

        private func transport() throws(MCPConfigError) -> MCPServerSettings.Transport {
            switch try string("transport") {
            case "stdio":
                guard let command = fields["command"] as? [String], let program = command.first, !program.isEmpty
                else {
                    throw failure("command", "must be an array of strings: the program, then its arguments")
                }
                return .stdio(command: command, environment: try strings("env"))
            case "http":
                let url = try string("url")
                guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme), parsed.host != nil
                else {
                    throw failure("url", "must be an http:// or https:// address")
                }
                return .http(url: url, headers: try strings("headers"))
            default:
                throw failure("transport", "must be “stdio” or “http”")
            }
        }

        private func tools() throws(MCPConfigError) -> [String: MCPServerSettings.ToolChoice] {
            guard let value = fields["tools"] else { return [:] }
            guard let tools = value as? [String: Any] else {
                throw failure("tools", "must be an object of tool names")
            }
            var choices: [String: MCPServerSettings.ToolChoice] = [:]
            for (name, value) in tools {
                guard let options = value as? [String: Any],
                    options.keys.allSatisfy({ $0 == "enabled" || $0 == "confirm" }),
                    options.values.allSatisfy({ $0 is Bool })
                else {
                    throw failure("tools.\(name)", "must be {\"enabled\": true or false, \"confirm\": true or false}")
                }
                choices[name] = .init(
                    enabled: options["enabled"] as? Bool ?? true, confirm: options["confirm"] as? Bool ?? false)
            }
            return choices
        }

        private func string(_ key: String) throws(MCPConfigError) -> String {
            guard let value = try optional(key, as: String.self), !value.isEmpty else {
                throw failure(key, "is required (a string)")
            }
            return value
        }

        private func strings(_ key: String) throws(MCPConfigError) -> [String: String] {
            guard let value = fields[key] else { return [:] }
            guard let strings = value as? [String: String] else {
                throw failure(key, "must be an object whose values are strings")
            }
            return strings
        }

        private func optional<T>(_ key: String, as type: T.Type) throws(MCPConfigError) -> T? {
            guard let value = fields[key] else { return nil }
            guard let typed = value as? T else {
                throw failure(key, "must be \(T.self == Bool.self ? "true or false" : "a string")")
            }
            return typed
        }

        private func failure(_ key: String, _ problem: String) -> MCPConfigError {
            MCPConfigError(place: "\(label).\(key)", problem: problem)
        }
    }
}
