/// Images attached to messages, always scoped by their owner (shares reach theirs through `ShareStore`).
public protocol AttachmentStore: Sendable {
    /// One of the user's attachments with its bytes.
    func attachment(id: AttachmentID, userID: UserID) async throws(StoreError) -> AttachmentContent?
    /// The user's attachments of the given messages with their bytes, grouped by message, in order.
    func attachmentContents(messageIDs: [MessageID], userID: UserID) async throws(StoreError) -> [MessageID:
        [AttachmentContent]]
    /// Attaches images to one of the user's messages (a generated image to its reply); `.notFound` when it is not
    /// theirs.
    func addAttachments(_ images: [NewImage], messageID: MessageID, userID: UserID) async throws(StoreError)
        -> [Attachment]
}
