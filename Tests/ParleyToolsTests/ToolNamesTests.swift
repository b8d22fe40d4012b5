import Testing

@testable import ParleyTools

/// The names models see: `serverid__toolname`, vendor-safe, at most 64 characters, distinct for distinct tools.
@Suite struct ToolNamesTests {
    @Test func aNameThatFitsIsKept() {
        #expect(ToolNames.exposed(server: "files", tool: "read_file") == "files__read_file")
        #expect(ToolNames.serverID(of: "files__read_file") == "files")
        #expect(ToolNames.serverID(of: "__x") == nil)
    }

    @Test func unsafeOrLongNamesAreMadeSafeAndStayDistinct() {
        let names = ["read.file", "read file", "read_file", String(repeating: "long", count: 30), "lire-le-fichier-é"]
            .map { ToolNames.exposed(server: "files", tool: $0) }
        #expect(Set(names).count == names.count)
        for name in names {
            #expect(name.count <= 64 && name.hasPrefix("files__"))
            #expect(name.unicodeScalars.allSatisfy(ToolNames.isAllowed))
        }
    }
}
