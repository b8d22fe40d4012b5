/// What a multipart upload may carry: the name of its file field, bytes per file, files per request, and bytes of
/// text fields.
struct UploadLimits: Sendable {
    /// The name of the file field (`image` for a message's images).
    var fileField = "image"
    /// The largest file accepted, in bytes (`PARLEY_MAX_UPLOAD_MB` for images).
    var maxFileBytes: Int
    /// The most files one request may carry.
    var maxFiles: Int
    /// The text fields' bytes together (a message of 100,000 characters fits).
    var maxFieldBytes = 1024 * 1024

    /// The limits as the composer template shows and the browser script checks them.
    var templateValues: [String: Int] {
        ["max_images": maxFiles, "max_bytes": maxFileBytes, "max_megabytes": maxFileBytes / (1024 * 1024)]
    }

    /// The largest body such a request can have, with room for the parts' headers.
    var maxBodyBytes: Int { maxFiles * maxFileBytes + maxFieldBytes + 64 * 1024 }
}
