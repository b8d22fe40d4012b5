import Foundation
import MockUpstream
import Testing

/// A small filesystem of its own (a tmpfs) holding the database, filled up while the server runs.
struct SmallDisk {
    let path: String

    /// Whether this machine lets the tests mount a tmpfs (it needs root): tried once, for real.
    static let canMount: Bool = {
        guard let disk = try? SmallDisk(megabytes: 1) else { return false }
        disk.unmount()
        return true
    }()

    /// Mounts a tmpfs of `megabytes` at a fresh temp folder.
    init(megabytes: Int) throws {
        path = try makeTempDirectory()
        guard Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path]) else {
            try? FileManager.default.removeItem(atPath: path)
            throw TestFailure("could not mount a tmpfs at \(path)")
        }
    }

    /// Bytes still free.
    var freeBytes: Int {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { return 0 }
        return Int(stats.f_bavail) * Int(stats.f_frsize)
    }

    /// Writes a file taking all the free space but `leaving` bytes; returns its path.
    func fill(leaving: Int) throws -> String {
        let filler = path + "/filler"
        let size = max(0, freeBytes - leaving)
        guard FileManager.default.createFile(atPath: filler, contents: nil) else { throw TestFailure("could not create \(filler)") }
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

    /// Unmounts the tmpfs (lazily if a file is still open) and removes the folder.
    func unmount() {
        if !Self.run("/bin/umount", [path]) { _ = Self.run("/bin/umount", ["-l", path]) }
        try? FileManager.default.removeItem(atPath: path)
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

/// The database's disk filling up under a running server.
@Suite("Reliability: a full disk", .enabled(if: SmallDisk.canMount, "needs root to mount a small tmpfs"))
struct ReliabilityDiskFullTests {
    /// A message big enough to need new database pages every time.
    static let bulky = String(repeating: "lorem ipsum dolor sit amet ", count: 3_000)

    @Test("sends on a full disk get 507 disk_full (JSON and page), the server keeps serving what is saved, a reply whose end cannot be saved says so, and freeing space brings writes back with the file intact")
    func fullDisk() async throws {
        let disk = try SmallDisk(megabytes: 12)
        defer { disk.unmount() }
        try await withTestServer(mockTokens: 10, mockDelayMilliseconds: 3, dataDirectory: disk.path,
                                 configure: { $0.sendRateLimit = nil }) { server in
            let account = try await server.signUp("user@example.com")
            var browser = account.browser
            let api = account.api
            let id = try await api.createConversation()
            let first = try await api.sendStreaming(id, "saved before the disk filled")
            #expect(try await first.untilDone().done?.json["status"] as? String == "complete")
            let before = try await api.messages(id)
            #expect(before.count == 2)

            // A long reply (several seconds) is streaming when the disk fills up.
            let long = try await api.createConversation(model: "mock-long")
            let streaming = try await api.sendStreaming(long, "a reply that will not fit")
            _ = try await streaming.untilTokens(1)
            let filler = try disk.fill(leaving: 0)

            // New messages are refused with a clear reason once SQLite's own slack is used up: as JSON and as a page.
            var refused = try await api.send(id, Self.bulky)
            for _ in 0..<100 where refused.status != 507 {
                #expect([202, 409].contains(refused.status), "\(refused.status): \(refused.body.prefix(300))")
                try await Task.sleep(for: .milliseconds(50))
                refused = try await api.send(id, Self.bulky)
            }
            #expect(refused.status == 507, "\(refused.body.prefix(300))")
            #expect((try refused.json()["error"] as? [String: Any])?["code"] as? String == "disk_full")
            let page = try await browser.post("/c/\(id)/messages", form: ["content": Self.bulky])
            #expect(page.status == 507)
            #expect(page.body.contains("disk is full"))

            // The long reply's end cannot be saved: its stream says so instead of ending as usual.
            let ended = try await streaming.untilDone(timeout: .seconds(60))
            #expect(ended.first { $0.name == "error" }?.json["code"] as? String == "not_saved")
            #expect(ended.done?.json["status"] as? String == "error")

            // What was saved is still served.
            #expect(try await api.request(.GET, "/healthz").status == 200)
            let during = try await api.messages(id)
            #expect(during.prefix(2).map { $0["content"] as? String } == before.map { $0["content"] as? String })
            #expect(try await browser.get("/c/\(id)").status == 200)

            // Space again: writes work, and the file is intact.
            try FileManager.default.removeItem(atPath: filler)
            let fresh = try await api.createConversation()
            let again = try await api.sendStreaming(fresh, "after the space came back")
            #expect(try await again.untilDone().done?.json["status"] as? String == "complete")
            #expect(try await api.messages(fresh).last?["content"] as? String == MockReply.text(model: "mock-fast", tokens: 10))
            let after = try await api.messages(id)
            #expect(after.prefix(2).map { $0["content"] as? String } == before.map { $0["content"] as? String })
            #expect(try await DatabaseHealth.read(server.dataDirectory).integrity == "ok")
        }
    }
}
