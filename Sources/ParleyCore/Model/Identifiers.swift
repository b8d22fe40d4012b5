/// The row id of a user.
public typealias UserID = Int64
/// The row id of a conversation.
public typealias ConversationID = Int64
/// The row id of a message.
public typealias MessageID = Int64
/// The row id of an attachment (an uploaded or generated image).
public typealias AttachmentID = Int64
/// A group's row id.
public typealias GroupID = Int64
/// The row id of a completion asked through the OpenAI-compatible endpoint.
public typealias APICompletionID = Int64
/// The row id of an assistant.
public typealias AssistantID = Int64
/// The row id of a document (uploaded in a conversation or into a knowledge collection).
public typealias DocumentID = Int64
/// The row id of a knowledge collection.
public typealias CollectionID = Int64
