import Dispatch
import FuzzSupport
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyCore

@testable import ParleyServer

/// The boundary every fuzzed body is declared with (the fuzzer may or may not use it).
let boundary = "fuzzboundary"

/// Reads a body arriving in `pieces` as an upload form the way the message route does (CSRF token expected, limits
/// small enough for 4 KB inputs to reach), then inspects every file it kept as the route would. Runs the async
/// reader to its end.
func readUpload(_ pieces: [ArraySlice<UInt8>]) {
    var head = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: "/c/1/messages")
    head.headerFields[.contentType] = "multipart/form-data; boundary=\(boundary)"
    let (body, source) = AsyncStream<ByteBuffer>.makeStream()
    for piece in pieces { source.yield(ByteBuffer(bytes: piece)) }
    source.finish()
    let request = Request(head: head, body: RequestBody(asyncSequence: body))
    let limits = UploadLimits(maxFileBytes: 2048, maxFiles: 2, maxFieldBytes: 256)
    let done = DispatchSemaphore(value: 0)
    Task {
        defer { done.signal() }
        guard let form = try? await UploadForm.read(request, limits: limits, expectedCSRF: "token") else { return }
        for file in form.files { _ = try? NewImage(fileName: file.fileName, bytes: file.bytes) }
    }
    done.wait()
}

/// The upload path: a `multipart/form-data` body, cut where the fuzzer says (as reads from the socket would cut it),
/// through the streaming multipart reader, the part header parser and the image inspector; the whole input through
/// the last two as well. Nothing may crash; a refusal (400, 403, 413, 415, 422) is fine.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUploads(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let input = FuzzInput(start, count) else { return 0 }
    readUpload(input.pieces(of: input.data))
    _ = ContentDisposition(String(decoding: input.data, as: UTF8.self))
    _ = try? ImageInspector.inspect(input.data)
    return 0
}

runFuzzer(fuzzUploads)
