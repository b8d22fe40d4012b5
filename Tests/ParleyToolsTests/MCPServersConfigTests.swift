import Foundation
import ParleyCore
import ParleyTools
import Testing

/// `mcp_servers` in `PARLEY_CONFIG`: both transports, the per-tool choices, and errors that name the place.
@Suite struct MCPServersConfigTests {
    private func parse(_ json: String) throws(MCPConfigError) -> [MCPServerSettings] {
        try MCPServersConfig.parse(configFile: Data(json.utf8))
    }

    @Test func readsBothTransportsAndTheToolChoices() throws {
        let servers = try parse(
            """
            {"providers": [], "mcp_servers": [
              {"id": "files", "name": "Files", "transport": "stdio", "command": ["npx", "server-files", "/srv"],
               "env": {"ROOT": "/srv"}, "tools": {"delete_file": {"confirm": true}, "chmod": {"enabled": false}}},
              {"id": "tickets", "transport": "http", "url": "https://mcp.example.test/mcp",
               "headers": {"Authorization": "Bearer t"}, "enabled_by_default": false}
            ]}
            """)
        #expect(
            servers == [
                MCPServerSettings(
                    id: "files", name: "Files",
                    transport: .stdio(command: ["npx", "server-files", "/srv"], environment: ["ROOT": "/srv"]),
                    tools: ["delete_file": .init(confirm: true), "chmod": .init(enabled: false)]),
                MCPServerSettings(
                    id: "tickets", name: "tickets",
                    transport: .http(url: "https://mcp.example.test/mcp", headers: ["Authorization": "Bearer t"]),
                    enabledByDefault: false),
            ])
        #expect(try parse(#"{"providers": []}"#).isEmpty)
    }

    @Test(arguments: [
        (#"[{"id": "a__b", "transport": "stdio", "command": ["x"]}]"#, "mcp_servers[0] (a__b).id"),
        (#"[{"id": "a", "transport": "stdio"}]"#, "mcp_servers[0] (a).command"),
        (#"[{"id": "a", "transport": "http", "url": "ftp://x"}]"#, "mcp_servers[0] (a).url"),
        (#"[{"id": "a", "transport": "pipe"}]"#, "mcp_servers[0] (a).transport"),
        (#"[{"transport": "stdio", "command": ["x"]}]"#, "mcp_servers[0].id"),
        (
            #"[{"id": "a", "transport": "stdio", "command": ["x"], "tools": {"t": {"confirm": "yes"}}}]"#,
            "mcp_servers[0] (a).tools.t"
        ),
        (#"[{"id": "a", "transport": "stdio", "command": ["x"], "comand": 1}]"#, "mcp_servers[0] (a).comand"),
        (
            #"[{"id": "a", "transport": "stdio", "command": ["x"]}, {"id": "a", "transport": "stdio", "command": ["y"]}]"#,
            "mcp_servers[1] (a).id"
        ),
    ])
    func errorsNameTheServerAndField(servers: String, place: String) {
        #expect {
            try parse(#"{"mcp_servers": "# + servers + "}")
        } throws: { error in
            (error as? MCPConfigError)?.place == place
        }
    }
}
