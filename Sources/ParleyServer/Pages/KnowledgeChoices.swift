import ParleyCore

extension KnowledgeService {
    /// The user's collections as the `knowledge_choices` partial lists them (checkboxes), those in `checked` ticked.
    func choices(of userID: UserID, checked: [CollectionID]) async throws(KnowledgeError) -> [[String: Any]] {
        let ticked = Set(checked)
        return try await collections(of: userID).map { collection in
            ["id": collection.id, "name": collection.name, "checked": ticked.contains(collection.id)]
        }
    }
}
