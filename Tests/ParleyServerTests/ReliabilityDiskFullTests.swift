import Foundation
import MockUpstream
import ParleyStore
import Testing

/// A small filesystem of its own (a tmpfs) mounted on a folder, filled up while a server keeps its database there.
struct SmallDisk {
    let path: String

    /// Whether this machine lets the tests mount a tmpfs (it needs root): tried once, for real.
    static let canMount: Bool = {
        guard let path = try? makeTempDirectory() else { return false }
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard let disk = try? SmallDisk(megabytes: 1, at: path) else { return false }
        disk.unmount()
        return true
    }()

    /// Mounts a tmpfs of `megabytes` on the existing, empty folder `path`.
    init(megabytes: Int, at path: String) throws {
        self.path = path
        guard Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path]) else {
            throw TestFailure("could not mount a tmpfs at \(path)")
        }
    }

    /// Bytes still free.
    var freeBytes: Int {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { return 0 }
        return Int(stats.f_bavail) * Int(stats.f_frsize)
    }

    /// Writes a new file taking all the free space but `leaving` bytes; returns its path.
    func fill(leaving: Int) throws -> String {
        let filler = path + "/filler-" + UUID().uuidString
        let size = max(0, freeBytes - leaving)
        guard FileManager.default.createFile(atPath: filler, contents: nil) else {
            throw TestFailure("could not create \(filler)")
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: filler))
        defer { try? handle.close() }
        let block = Data(count: 64 << 10)
        var written = 0
        while written < size {
            let part = block.prefix(min(block.count, size - written))
            do { try handle.write(contentsOf: part) } catch { break }
            written += part.count
        }
        return filler
    }

    /// Unmounts the tmpfs (lazily when a process still has a file open on it; it goes once that process ends).
    func unmount() {
        if !Self.run("/bin/umount", [path]) { _ = Self.run("/bin/umount", ["-l", path]) }
    }

    /// Runs a command quietly; whether it succeeded.
    private static func run(_ executable: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}

/// The database's disk filling up under the real `parley serve`.
@Suite("Reliability: a full disk", .enabled(if: SmallDisk.canMount, "needs root to mount a small tmpfs"))
struct ReliabilityDiskFullTests {
    /// A message big enough to need new database pages every time.
    static let bulky = String(repeating: "lorem ipsum dolor sit amet ", count: 3_000)
    /// A model that takes images (from `PARLEY_CONFIG`); the mock upstream answers it as `mock-fast`.
    static let visionModel = "mock-vision"
    static let mock = MockUpstreamConfiguration(port: 0, tokens: 10, delayMilliseconds: 2)

    /// A valid PNG of `bytes` bytes: the fixture with a private ancillary chunk of filler before its end.
    static func paddedPNG(bytes: Int) throws -> [UInt8] {
        let png = try Fixtures.image("gradient.png")
        let padding = bytes - png.count - 12
        let chunk =
            withUnsafeBytes(of: UInt32(padding).bigEndian, Array.init) + Array("prVt".utf8)
            + [UInt8](repeating: 0x55, count: padding) + [0, 0, 0, 0]
        return Array(png.dropLast(12)) + chunk + Array(png.suffix(12))
    }

    /// Sends `content` with `image` from the browser, as the composer does; answers like a script (JSON).
    static func upload(_ browser: inout Browser, _ conversation: Int64, _ content: String, image: [UInt8]) async throws
        -> TestResponse
    {
        try await browser.postMultipart(
            "/c/\(conversation)/messages", fields: [("content", content), ("model", visionModel)],
            files: [("photo.png", "image/png", image)])
    }

    /// The bytes of the first image attached to the conversation's first message, as served to its owner.
    static func firstImage(_ browser: inout Browser, _ api: APIClient, _ conversation: Int64) async throws -> [UInt8] {
        let attachments = try await api.messages(conversation).first?["attachments"] as? [[String: Any]]
        let id = try #require(attachments?.first?["id"] as? Int)
        let served = try await browser.get("/attachments/\(id)")
        #expect(served.status == 200)
        return served.bytes
    }

    @Test(
        "on a full disk the real server answers sends and a 4 MB upload with 507 disk_full (JSON and page), never 500, keeps running and serving what was saved, and a reply whose end cannot be saved says so; freeing space brings writes back without a restart; a start on a full disk stops with a clear message; the file stays intact"
    )
    func fullDisk() async throws {
        let folder = try makeTempDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let config = folder + "/models.json"
        // The mock models used are configured, not only discovered: on a loaded machine the start's one-second wait
        // for the mock's model list can pass before the list comes.
        let models = """
            {"models": [{"id": "\(Self.visionModel)", "provider": "openai", "upstream_id": "mock-fast", "vision": true},
                        {"id": "mock-fast", "provider": "openai"}, {"id": "mock-long", "provider": "openai"}]}
            """
        try Data(models.utf8).write(to: URL(fileURLWithPath: config))
        try await ProcessHarness.with(
            mock: Self.mock,
            environment: [
                "PARLEY_SEND_RATE": "0", "PARLEY_MODEL_TITLES": "off",
                "PARLEY_CONFIG": config,
            ]
        ) { harness in
            let disk = try SmallDisk(megabytes: 16, at: harness.dataDirectory)
            defer { disk.unmount() }
            var (process, server) = try await harness.start()
            var (browser, api) = try await server.signUp("user@example.com")

            // Saved before the disk fills: a reply, and a small image.
            let id = try await api.createConversation()
            #expect(
                try await api.sendStreaming(id, "saved before the disk filled").untilDone().done?.json["status"]
                    as? String == "complete")
            let pictures = try await api.createConversation(model: Self.visionModel)
            let small = try Self.paddedPNG(bytes: 64 << 10)
            #expect(try await Self.upload(&browser, pictures, "a small picture", image: small).status == 202)
            try await AttachmentTests.waitForReply(api, pictures)
            let before = try await api.messages(id).map { $0["content"] as? String }
            #expect(before.count == 2)

            // A long reply is streaming when a filler file takes all the free space.
            let long = try await api.createConversation(model: "mock-long")
            let streaming = try await api.sendStreaming(long, "a reply that will not fit")
            _ = try await streaming.untilTokens(1)
            var fillers = [try disk.fill(leaving: 0)]

            // A 4 MB upload cannot fit; text messages fit until SQLite's own slack is used up. Both end with 507 and a
            // clear reason, as JSON and as a page; other writes succeed or get 507.
            let big = try Self.paddedPNG(bytes: 4 << 20)
            let refusedUpload = try await Self.upload(&browser, pictures, "a big picture", image: big)
            #expect(refusedUpload.status == 507, "\(refusedUpload.body.prefix(300))")
            #expect((try refusedUpload.json()["error"] as? [String: Any])?["code"] as? String == "disk_full")
            var refused = try await api.send(id, Self.bulky)
            for _ in 0..<200 where refused.status != 507 {
                #expect([202, 409].contains(refused.status), "\(refused.status): \(refused.body.prefix(300))")
                try await Task.sleep(for: .milliseconds(20))
                refused = try await api.send(id, Self.bulky)
            }
            #expect(refused.status == 507, "\(refused.body.prefix(300))")
            #expect((try refused.json()["error"] as? [String: Any])?["code"] as? String == "disk_full")
            let page = try await browser.post("/c/\(id)/messages", form: ["content": Self.bulky])
            #expect(page.status == 507)
            #expect(page.body.contains("disk is full"))
            let created = try await api.request(.POST, "/api/conversations", json: ["title": "made on a full disk"])
            #expect([201, 507].contains(created.status), "creating a conversation: \(created.status)")
            let renamed = try await browser.post("/c/\(id)/rename", form: ["title": "renamed on a full disk"])
            #expect([303, 507].contains(renamed.status), "renaming: \(renamed.status)")

            // The long reply, stopped, cannot save its end: its stream says so instead of ending as usual.
            #expect(try await api.request(.POST, "/api/conversations/\(long)/stop").status == 204)
            let ended = try await streaming.untilDone(timeout: .seconds(60))
            #expect(ended.first { $0.name == "error" }?.json["code"] as? String == "not_saved")
            #expect(ended.done?.json["status"] as? String == "error")

            // The server is still up and serves what was saved.
            #expect(process.isRunning)
            #expect(try await api.request(.GET, "/healthz").status == 200)
            #expect(try await api.messages(id).prefix(2).map { $0["content"] as? String } == before)
            #expect(try await browser.get("/c/\(id)").status == 200)
            #expect(try await Self.firstImage(&browser, api, pictures) == small)

            // Space again: the same server saves replies and the big upload.
            try FileManager.default.removeItem(atPath: fillers.removeFirst())
            let fresh = try await api.createConversation()
            #expect(
                try await api.sendStreaming(fresh, "after the space came back").untilDone().done?.json["status"]
                    as? String == "complete")
            #expect(
                try await api.messages(fresh).last?["content"] as? String
                    == MockReply.text(model: "mock-fast", tokens: Self.mock.tokens))
            let bigPictures = try await api.createConversation(model: Self.visionModel)
            #expect(try await Self.upload(&browser, bigPictures, "a big picture", image: big).status == 202)
            #expect(try await Self.firstImage(&browser, api, bigPictures) == big)
            try await AttachmentTests.waitForReply(api, bigPictures)

            // Stopped, then the disk fills while the server is down: it cannot start (every start writes), and says
            // why. Closed once more from here, the file keeps no write-ahead log whose space a start could reuse.
            _ = try await CrashRecoveryTests.terminate(process, within: .seconds(15))
            try ParleyDatabase(directory: harness.dataDirectory).close()
            fillers.append(try disk.fill(leaving: 0))
            let log = folder + "/refused-start.log"
            try Data().write(to: URL(fileURLWithPath: log))
            await #expect(throws: TestFailure.self) { try await harness.start(log: FileHandle(forWritingAtPath: log)) }
            let said = try String(contentsOfFile: log, encoding: .utf8)
            #expect(said.contains("is full, so Parley cannot start"), "\(said.suffix(500))")

            // Space again: it starts, marks that reply interrupted, and the file is intact with everything saved.
            for filler in fillers { try FileManager.default.removeItem(atPath: filler) }
            (process, server) = try await harness.start()
            api = api.on(server)
            #expect(try await DatabaseHealth.read(harness.dataDirectory) == .healthy)
            #expect(try await api.messages(id).prefix(2).map { $0["content"] as? String } == before)
            #expect(try await api.messages(long).last?["status"] as? String == "interrupted")
            #expect(
                (try await api.messages(bigPictures).first?["attachments"] as? [[String: Any]])?.first?["bytes"] as? Int
                    == big.count)
            _ = try await CrashRecoveryTests.terminate(process, within: .seconds(15))
        }
    }
}
