import Foundation
import Logging
import MCP
import Synchronization

/// MCP over a child process's standard input and output, a JSON-RPC message a line. Reading happens in the pipe's
/// readability handler, on a dispatch queue rather than the concurrency pool, and each read looks for line ends only
/// in the bytes it brought, so that a large result neither holds a pool thread nor costs time in its square.
actor PipeTransport: Transport {
    nonisolated let logger: Logger
    private let reading: FileHandle
    private let writing: FileHandle
    private let messages: AsyncThrowingStream<Data, any Error>
    private let continuation: AsyncThrowingStream<Data, any Error>.Continuation
    /// Writes go one at a time on a queue of their own: a child slow to read must not hold a pool thread either.
    private let writes = DispatchQueue(label: "parley.mcp.stdio.write")

    /// A transport reading the child's output from `reading` and writing its input to `writing`.
    init(reading: FileHandle, writing: FileHandle, logger: Logger) {
        self.reading = reading
        self.writing = writing
        self.logger = logger
        (messages, continuation) = AsyncThrowingStream.makeStream(of: Data.self, throwing: (any Error).self)
    }

    func connect() async throws {
        let lines = LineSplitter()
        let continuation = continuation
        reading.readabilityHandler = { handle in
            let chunk = handle.availableData
            guard !chunk.isEmpty else {
                handle.readabilityHandler = nil
                continuation.finish()
                return
            }
            for line in lines.add(chunk) { continuation.yield(line) }
        }
    }

    func disconnect() async {
        reading.readabilityHandler = nil
        continuation.finish()
    }

    func send(_ data: Data) async throws {
        let line = data + [UInt8(ascii: "\n")]
        let writing = writing
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            writes.async {
                do {
                    try writing.write(contentsOf: line)
                    done.resume()
                } catch {
                    done.resume(throwing: MCPError.transportError(error))
                }
            }
        }
    }

    func receive() -> AsyncThrowingStream<Data, any Error> {
        messages
    }
}

/// Cuts a byte stream into its non-empty lines, looking for line ends only in the bytes each call brings.
final class LineSplitter: Sendable {
    /// The bytes after the last line end.
    private let pending = Mutex(Data())

    /// The lines that `chunk` completes.
    func add(_ chunk: Data) -> [Data] {
        pending.withLock { pending in
            var lines: [Data] = []
            var lineStart = pending.startIndex
            var searchFrom = pending.endIndex
            pending.append(chunk)
            while let newline = pending[searchFrom...].firstIndex(of: UInt8(ascii: "\n")) {
                if newline > lineStart { lines.append(Data(pending[lineStart..<newline])) }
                lineStart = newline + 1
                searchFrom = lineStart
            }
            if lineStart > pending.startIndex { pending = Data(pending[lineStart...]) }
            return lines
        }
    }
}
