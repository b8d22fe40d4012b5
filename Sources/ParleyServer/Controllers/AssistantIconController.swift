import Hummingbird
import ParleyCore

/// An assistant's uploaded icon: shown to whoever may use the assistant, set or removed by whoever may change it,
/// from the edit page's upload form or the JSON API (`PUT` with the image as the body, `DELETE`).
struct AssistantIconController {
    let assistants: AssistantService

    /// The upload form's limits: one `icon` file of up to `AssistantService.maxIconBytes`.
    static let limits = UploadLimits(fileField: "icon", maxFileBytes: AssistantService.maxIconBytes, maxFiles: 1)

    /// Adds the routes.
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/assistants/{id}/icon") { _, context in
            let user = try context.requireUser()
            guard let icon = try await assistants.icon(of: try context.rowID(), for: user) else {
                throw AppError.notFound
            }
            // Revalidated each time: a new upload keeps the address.
            return Response(
                status: .ok, headers: [.contentType: icon.contentType, .cacheControl: "private, no-cache"],
                body: .init(byteBuffer: ByteBuffer(bytes: icon.bytes)))
        }
        router.post("/assistants/{id}/icon") { request, context in
            let user = try context.requireUser()
            let id = try context.rowID()
            // Whose it is comes first: a stranger's upload is a 404, whatever its body.
            guard AssistantService.canChange(try await assistants.assistant(id, for: user), user) else {
                throw AppError(ChatError.readOnly)
            }
            let form = try await UploadForm.read(
                request, limits: Self.limits, expectedCSRF: context.csrfTokenForUploadForm)
            let bytes = form["remove"] == "1" ? nil : form.files.first?.bytes
            guard bytes != nil || form["remove"] == "1" else {
                throw AppError(.unprocessableContent, code: "invalid_assistant", message: "Choose an image to upload.")
            }
            try await assistants.setIcon(bytes, of: id, by: user)
            return Response.seeOther("/assistants/\(id)/edit")
        }
        router.put("/api/assistants/{id}/icon") { request, context in
            let user = try context.requireUser()
            var request = request
            let body = try await request.collectBody(within: AssistantService.maxIconBytes)
            try await assistants.setIcon(Array(body.readableBytesView), of: try context.rowID(), by: user)
            return Response(status: .noContent)
        }
        router.delete("/api/assistants/{id}/icon") { _, context in
            try await assistants.setIcon(nil, of: try context.rowID(), by: try context.requireUser())
            return Response(status: .noContent)
        }
    }
}
