import Foundation
import NIOCore

/// A `multipart/form-data` body as a browser builds it: text fields first, then files.
struct MultipartBody {
    let boundary = "----ParleyTest" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
    var fields: [(String, String)] = []
    var files: [(field: String, name: String, type: String, bytes: [UInt8])] = []

    /// The `Content-Type` header's value.
    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// The encoded body.
    var bytes: ByteBuffer {
        var buffer = ByteBuffer()
        for (name, value) in fields {
            buffer.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n")
        }
        for file in files {
            buffer.writeString(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.field)\"; filename=\"\(file.name)\"\r\n"
                    + "Content-Type: \(file.type)\r\n\r\n")
            buffer.writeBytes(file.bytes)
            buffer.writeString("\r\n")
        }
        buffer.writeString("--\(boundary)--\r\n")
        return buffer
    }
}

/// The test images in Tests/Fixtures/images, made by Pillow and libvips (real encoders, not hand-written headers).
enum Fixtures {
    /// The bytes of a fixture image.
    static func image(_ name: String) throws -> [UInt8] {
        [UInt8](
            try Data(contentsOf: URL(fileURLWithPath: TestServer.repositoryRoot + "/Tests/Fixtures/images/" + name)))
    }
}

extension Browser {
    /// Posts a multipart form with the CSRF field first (as the composer does), answering like a script (JSON) or a
    /// form.
    mutating func postMultipart(
        _ path: String, fields: [(String, String)], files: [(name: String, type: String, bytes: [UInt8])],
        fileField: String = "image", json: Bool = true, csrf: Bool = true
    ) async throws -> TestResponse {
        var body = MultipartBody()
        if csrf, let token = csrfToken { body.fields.append(("csrf_token", token)) }
        body.fields += fields
        body.files = files.map { (field: fileField, name: $0.name, type: $0.type, bytes: $0.bytes) }
        var headers = [("Content-Type", body.contentType)]
        if json { headers.append(("Accept", "application/json")) }
        return try await send(.POST, path, headers: headers, bytes: body.bytes)
    }
}
