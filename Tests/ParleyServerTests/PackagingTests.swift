import Foundation
import Testing

/// Docker's engine is not available here, so this checks that the Dockerfile stays a thin wrapper around what CI runs.
@Suite("Packaging")
struct PackagingTests {
    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: TestServer.repositoryRoot + "/" + path, encoding: .utf8)
    }

    @Test("the Dockerfile runs the Makefile's install script and copies the paths the server reads")
    func dockerfileMatchesMakefile() throws {
        let dockerfile = try Self.read("Dockerfile")
        let makefile = try Self.read("Makefile")
        #expect(makefile.contains("./scripts/install-deps.sh"))
        #expect(dockerfile.contains("RUN ./scripts/install-deps.sh"))
        #expect(FileManager.default.isExecutableFile(atPath: TestServer.repositoryRoot + "/scripts/install-deps.sh"))
        #expect(dockerfile.contains("swift build -c release"))
        #expect(dockerfile.contains("COPY Templates /app/Templates"))
        #expect(dockerfile.contains("COPY Public /app/Public"))
        #expect(dockerfile.contains("HEALTHCHECK") && dockerfile.contains("/healthz"))
        #expect(dockerfile.contains("USER parley"))
        #expect(try Self.read(".ci/run").contains("make test"))
    }
}
