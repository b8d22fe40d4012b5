/// The row id of a user.
public typealias UserID = Int64
/// The row id of a conversation.
public typealias ConversationID = Int64
/// The row id of a message.
public typealias MessageID = Int64
