// swift-tools-version:6.0
// Fuzz targets for libFuzzer, kept out of the main package so that `swift build` and `make test` never compile
// them. Built by scripts/fuzz.sh with `-sanitize=fuzzer,address` (see docs/RELIABILITY.md, "Fuzzing").
import PackageDescription

let package = Package(
    name: "ParleyFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Parley", path: "..")],
    targets: [
        .target(name: "FuzzSupport"),
        .executableTarget(
            name: "FuzzUpstreamStream",
            dependencies: ["FuzzSupport", .product(name: "ParleyProviders", package: "Parley")]),
        .executableTarget(
            name: "FuzzMarkdown", dependencies: ["FuzzSupport", .product(name: "ParleyMarkdown", package: "Parley")]),
        .executableTarget(
            name: "FuzzUploads", dependencies: ["FuzzSupport", .product(name: "ParleyServer", package: "Parley")]),
        .executableTarget(
            name: "FuzzDocuments",
            dependencies: [
                "FuzzSupport", .product(name: "ParleyDocuments", package: "Parley"),
                .product(name: "ParleyCore", package: "Parley"),
            ]),
    ]
)
