import FuzzSupport
import Dispatch
import Foundation
import Hummingbird
import HTTPTypes
import NIOCore
import ParleyCore
@testable import ParleyServer

/// The boundary every fuzzed body is declared with (the fuzzer may or may not use it).
let boundary = "fuzzboundary"

/// Reads `body` as an upload form the way the message route does (CSRF token expected, small limits so that the
/// limits are reached), then inspects every file it kept as the route would. Runs the async reader to its end.
func readUpload(_ body: [UInt8]) {
    var head = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: "/c/1/messages")
    head.headerFields[.contentType] = "multipart/form-data; boundary=\(boundary)"
    let request = Request(head: head, body: RequestBody(buffer: ByteBuffer(bytes: body)))
    let limits = UploadLimits(maxFileBytes: 64 << 10, maxFiles: 4, maxFieldBytes: 16 << 10)
    let done = DispatchSemaphore(value: 0)
    Task {
        defer { done.signal() }
        guard let form = try? await UploadForm.read(request, limits: limits, expectedCSRF: "token") else { return }
        for file in form.files { _ = try? NewImage(fileName: file.fileName, bytes: file.bytes) }
    }
    done.wait()
}

/// The upload path: a `multipart/form-data` body through the streaming multipart reader, the part header parser and
/// the image inspector. Nothing may crash; a refusal (400, 413, 415, 422) is fine.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUploads(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzInput(start, count)
    readUpload(bytes)
    _ = ContentDisposition(String(decoding: bytes, as: UTF8.self))
    _ = try? ImageInspector.inspect(bytes)
    return 0
}

runFuzzer(fuzzUploads)
