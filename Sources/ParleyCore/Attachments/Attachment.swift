import Foundation

/// An image attached to a message (uploaded with it, or generated as the reply), without its bytes.
public struct Attachment: Sendable, Equatable {
    public var id: AttachmentID
    public var messageID: MessageID
    public var format: ImageFormat
    /// The name the file had on the uploader's machine, for the download name only (never trusted as a path).
    public var fileName: String
    public var byteCount: Int
    public var width: Int
    public var height: Int
    /// The SHA-256 of the bytes, hex: the strong ETag of `/attachments/{id}`.
    public var digest: String

    /// Creates an attachment value.
    public init(
        id: AttachmentID, messageID: MessageID, format: ImageFormat, fileName: String, byteCount: Int,
        width: Int, height: Int, digest: String
    ) {
        self.id = id
        self.messageID = messageID
        self.format = format
        self.fileName = fileName
        self.byteCount = byteCount
        self.width = width
        self.height = height
        self.digest = digest
    }
}

/// An attachment with its bytes, as served or sent to a vision model.
public struct AttachmentContent: Sendable, Equatable {
    public var attachment: Attachment
    public var bytes: [UInt8]

    /// Creates the content.
    public init(attachment: Attachment, bytes: [UInt8]) {
        self.attachment = attachment
        self.bytes = bytes
    }
}

/// An image checked and ready to store: its facts from the header, a cleaned file name and the bytes.
public struct NewImage: Sendable, Equatable {
    public var facts: ImageFacts
    public var fileName: String
    public var bytes: [UInt8]

    /// Inspects `bytes` (refusing anything but a well-formed PNG, JPEG, WebP or GIF of acceptable size) and keeps a
    /// display-safe version of `fileName`.
    public init(fileName: String, bytes: [UInt8]) throws(ImageRejection) {
        facts = try ImageInspector.inspect(bytes)
        self.fileName = Self.cleanName(fileName, format: facts.format)
        self.bytes = bytes
    }

    /// The last path component, without control characters, quotes or backslashes, at most 100 characters; a
    /// generic name when nothing is left.
    static func cleanName(_ name: String, format: ImageFormat) -> String {
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let kept = last.unicodeScalars.filter { scalar in
            !CharacterSet.controlCharacters.contains(scalar) && scalar != "\"" && scalar != ";"
        }
        let cleaned = String(String.UnicodeScalarView(kept)).trimmingCharacters(in: .whitespaces)
        return cleaned.isEmpty || cleaned == "." || cleaned == ".."
            ? "image.\(format.rawValue)" : String(cleaned.prefix(100))
    }
}
