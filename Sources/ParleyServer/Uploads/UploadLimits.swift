import ParleyCore
import ParleyDocuments

/// What a multipart upload may carry: its first file field's name, bytes per file and files per request, other file
/// fields with their own limits, and bytes of text fields.
struct UploadLimits: Sendable {
    /// The name of the file field (`image` for a message's images).
    var fileField = "image"
    /// The largest file accepted, in bytes (`PARLEY_MAX_UPLOAD_MB` for images).
    var maxFileBytes: Int
    /// The most files one request may carry.
    var maxFiles: Int
    /// Further file fields (a message's `document`s), by name.
    var otherFileFields: [String: FileFieldLimit] = [:]
    /// The text fields' bytes together (a message of 100,000 characters fits).
    var maxFieldBytes = 1024 * 1024

    /// The limits of the file field `name`, if it takes files.
    func fileLimit(_ name: String) -> FileFieldLimit? {
        name == fileField ? FileFieldLimit(maxFileBytes: maxFileBytes, maxFiles: maxFiles) : otherFileFields[name]
    }

    /// These limits with another file field.
    func adding(_ name: String, _ limit: FileFieldLimit) -> UploadLimits {
        var limits = self
        limits.otherFileFields[name] = limit
        return limits
    }

    /// The limits as the composer template shows and the browser scripts check them: the images', and the documents'
    /// when the upload takes them.
    var templateValues: [String: Any] {
        var values: [String: Any] = [
            "max_images": maxFiles, "max_bytes": maxFileBytes, "max_megabytes": maxFileBytes / (1024 * 1024),
        ]
        if let documents = otherFileFields["document"] {
            values["max_documents"] = documents.maxFiles
            values["max_document_bytes"] = documents.maxFileBytes
            values["max_document_megabytes"] = documents.maxFileBytes / (1024 * 1024)
            values["document_accept"] = DocumentKind.acceptedExtensions.map { "." + $0 }.joined(separator: ",")
        }
        return values
    }

    /// The largest body such a request can have, with room for the parts' headers.
    var maxBodyBytes: Int {
        maxFiles * maxFileBytes + otherFileFields.values.reduce(0) { $0 + $1.maxFiles * $1.maxFileBytes }
            + maxFieldBytes + 64 * 1024
    }
}

/// How many files one file field may carry, and how large each.
struct FileFieldLimit: Sendable {
    var maxFileBytes: Int
    var maxFiles: Int
}
