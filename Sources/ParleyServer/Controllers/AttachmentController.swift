import Foundation
import HTTPTypes
import Hummingbird
import ParleyCore

/// `GET /attachments/{id}`: an image for its owner, or for anyone holding a live share link that shows it
/// (`?share=TOKEN`). Served with its stored type, inline under a safe name, and cached by its digest.
struct AttachmentController {
    let chat: ChatService
    let shares: ShareService

    /// Adds the route.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/attachments/{id}") { request, context in try await show(request, context) }
    }

    /// Where the owner sees an attachment.
    static func ownerURL(_ attachment: Attachment) -> String { "/attachments/\(attachment.id)" }

    /// Where visitors of a share link see an attachment of its snapshot.
    static func sharedURL(_ attachment: Attachment, token: String) -> String {
        "/attachments/\(attachment.id)?share=\(token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
    }

    private func show(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let id = try context.rowID()
        let content: AttachmentContent
        let cacheControl: String
        if let token = request.uri.queryParameters["share"].map(String.init) {
            content = try await shares.attachment(id: id, token: token)
            cacheControl = "private, no-cache"  // a revoked link must stop showing it
        } else {
            let user = try context.requireUser()
            guard let owned = try await chat.attachment(id: id, userID: user.id) else {
                throw AppError.notFound
            }
            content = owned
            cacheControl = "private, max-age=31536000, immutable"
        }
        let etag = "\"\(content.attachment.digest)\""
        var headers: HTTPFields = [.eTag: etag, .cacheControl: cacheControl]
        if request.headers[.ifNoneMatch]?.split(separator: ",").contains(where: {
            $0.trimmingCharacters(in: .whitespaces) == etag
        }) == true {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = content.attachment.format.contentType
        headers[.contentDisposition] = Self.inlineDisposition(content.attachment.fileName)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: content.bytes)))
    }

    /// `inline` with an ASCII name (anything else replaced by `_`) and the exact name in RFC 5987 form.
    static func inlineDisposition(_ name: String) -> String {
        let ascii = String(
            name.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && scalar.value >= 0x20 && scalar != "\"" && scalar != "\\" ? Character(scalar) : "_"
            })
        let encoded =
            name.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: ".-_")))
            ?? ascii
        return "inline; filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)"
    }
}
