// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Parley",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "parley", targets: ["Parley"]),
        .executable(name: "parley-bench", targets: ["ParleyBench"]),
        .executable(name: "parley-dev", targets: ["ParleyDev"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.29.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.0.0"),
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk.git", from: "0.12.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CCmarkGFM", pkgConfig: "libcmark-gfm",
            providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"])]),
        .target(name: "ParleyMarkdown", dependencies: ["CCmarkGFM"]),
        // Hand-built JSON for events and requests, and the cursor that reads streamed chunks.
        .target(name: "ParleyJSON"),
        // libvips (Debian's libvips42) is opened at first use, not linked: see CParleyVips/parley_vips.c.
        .target(name: "CParleyVips"),
        .target(
            name: "ParleyImaging",
            dependencies: [
                "ParleyCore", "CParleyVips",
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        .target(
            name: "ParleyCore",
            dependencies: [
                "ParleyMarkdown", "ParleyJSON",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]),
        .target(
            name: "ParleyDocuments",
            dependencies: ["ParleyCore", .product(name: "Logging", package: "swift-log")]),
        // The MCP client: connections to the configured MCP servers and the `ToolRunner` the engine calls.
        .target(
            name: "ParleyTools",
            dependencies: [
                "ParleyCore", "ParleyProviders",
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        .target(
            name: "ParleyStore",
            dependencies: [
                "ParleyCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .target(
            name: "ParleyProviders",
            dependencies: [
                "ParleyCore", "ParleyImaging", "ParleyJSON",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "MockUpstream",
            dependencies: [
                "ParleyCore", "ParleyJSON",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .target(
            name: "ParleyServer",
            dependencies: [
                "ParleyCore", "ParleyStore", "ParleyProviders", "ParleyMarkdown", "ParleyJSON", "ParleyDocuments",
                "ParleyTools",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        .executableTarget(
            name: "Parley",
            dependencies: [
                "ParleyServer", "ParleyPostgres", "ParleyCopy", "ParleyStore", "ParleyCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .executableTarget(
            name: "ParleyDev",
            dependencies: [
                "ParleyServer", "ParleyStore", "MockUpstream",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "ParleyBench",
            dependencies: [
                "ParleyCore", "ParleyMarkdown", "ParleyStore", "ParleyPostgres", "ParleyProviders", "MockUpstream",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(name: "ParleyMarkdownTests", dependencies: ["ParleyMarkdown", "ParleyCore"]),
        .testTarget(
            name: "ParleyBenchTests",
            dependencies: [
                "ParleyBench",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]),
        // The stores in PostgreSQL, for several instances on one database (PARLEY_DATABASE_URL).
        .target(
            name: "ParleyPostgres",
            dependencies: [
                "ParleyCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        // `parley migrate --from-sqlite`: an SQLite database copied into an empty PostgreSQL one.
        .target(
            name: "ParleyCopy",
            dependencies: [
                "ParleyStore", "ParleyPostgres", "ParleyCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "ParleyStoreTests",
            dependencies: ["ParleyStore", "ParleyPostgres", "ParleyCopy", "ParleyCore", "TestDatabases"]),
        // What tests over both databases share: the test process's PostgreSQL server and a new database of each kind.
        .target(
            name: "TestDatabases",
            dependencies: [
                "ParleyCore", "ParleyStore", "ParleyPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestDatabases"),
        .testTarget(name: "ParleyDocumentsTests", dependencies: ["ParleyDocuments"]),
        .testTarget(name: "ParleyCoreTests", dependencies: ["ParleyCore", "ParleyMarkdown", "ParleyJSON"]),
        .testTarget(name: "ParleyToolsTests", dependencies: ["ParleyTools", "ParleyCore"]),
        .testTarget(name: "ParleyImagingTests", dependencies: ["ParleyImaging", "ParleyCore"]),
        .testTarget(
            name: "ParleyProvidersTests",
            dependencies: [
                "ParleyProviders", "MockUpstream", "ParleyJSON",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]),
        .testTarget(
            name: "ParleyServerTests",
            dependencies: [
                "ParleyServer", "ParleyCore", "ParleyStore", "ParleyProviders", "ParleyMarkdown", "MockUpstream",
                "TestDatabases",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ]),
    ]
)

// The libFuzzer targets in Fuzz/, a package of their own, import these modules as libraries; only scripts/fuzz.sh
// (`make fuzz`) sets PARLEY_FUZZ, so other builds of this package see no such products.
if Context.environment["PARLEY_FUZZ"] != nil {
    package.products += ["ParleyProviders", "ParleyMarkdown", "ParleyServer", "ParleyDocuments", "ParleyCore"].map {
        .library(name: $0, targets: [$0])
    }
}
