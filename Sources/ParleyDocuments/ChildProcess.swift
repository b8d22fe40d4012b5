import Foundation

/// Runs a reading tool (pdftotext, unzip) as a child process under limits: its address space, CPU time and the size
/// of the files it writes through `prlimit`, its wall time here (killed past it). Its output goes to a file, so that
/// nothing here blocks a thread waiting on a pipe.
struct ChildProcess {
    /// What a finished run gave: its exit status and what it wrote to standard error.
    struct Output {
        var status: Int32
        var stderr: String
    }

    /// Why a run did not finish.
    enum Failure: Error {
        /// It ran past its wall time, CPU time or memory, or wrote past its file size.
        case overLimit
        /// The tool could not be started (not installed).
        case notStarted(String)
    }

    var memoryBytes = 512 * 1_048_576
    var seconds = 30
    var maxOutputBytes = 64 * 1_048_576

    /// Runs `tool` with `arguments`, its standard output written to `output` (a file path), and waits for it without
    /// holding a thread.
    func run(_ tool: String, _ arguments: [String], standardOutput output: String? = nil) async throws(Failure)
        -> Output
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-\(UUID().uuidString)")
        let errorPath = directory.appendingPathComponent("stderr").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        process.arguments =
            ["--as=\(memoryBytes)", "--cpu=\(seconds)", "--fsize=\(maxOutputBytes)", "--", tool] + arguments
        process.standardInput = FileHandle.nullDevice
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
            _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
            process.standardError = FileHandle(forWritingAtPath: errorPath)
            if let output {
                _ = FileManager.default.createFile(atPath: output, contents: nil)
                process.standardOutput = FileHandle(forWritingAtPath: output)
            } else {
                process.standardOutput = FileHandle.nullDevice
            }
        } catch {
            throw .notStarted("\(error)")
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        // The wall clock: a tool still running then is killed (its CPU limit covers only the time it computes).
        let timer = Task { [process, seconds] in
            try? await Task.sleep(for: .seconds(seconds))
            if process.isRunning { process.terminate() }
        }
        defer { timer.cancel() }
        // A cancelled reading (a shutdown) ends the tool at once.
        let started: Result<Void, Failure> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard !Task.isCancelled else { return continuation.resume(returning: .failure(.overLimit)) }
                process.terminationHandler = { _ in continuation.resume(returning: .success(())) }
                do {
                    try process.run()
                } catch {
                    continuation.resume(returning: .failure(.notStarted("\(error)")))
                }
            }
        } onCancel: { [process] in
            if process.isRunning { process.terminate() }
        }
        if case .failure(let failure) = started { throw failure }
        guard process.terminationReason == .exit else { throw .overLimit }
        // A tool that ignores the file-size signal stops writing at the limit and may still exit well.
        if let output, let size = try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int,
            size >= maxOutputBytes
        {
            throw .overLimit
        }
        let errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        return Output(status: process.terminationStatus, stderr: String(errors.prefix(4_096)))
    }
}
