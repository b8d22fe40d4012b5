import ParleyCore

/// The assistant form's fields: text fields, `starter` repeated (up to four), `visibility`, `groups[]`, the
/// generation options' fields, and the knowledge collections ticked (`collection[]`, read when `collections_listed`
/// says the form listed them).
struct AssistantForm: Decodable {
    var name: String?
    var description: String?
    var icon: String?
    var instructions: String?
    var model: String?
    var starters: [String]?
    var visibility: String?
    var groups: [GroupID]?
    var options: GenerationOptionsFields
    var collections: [CollectionID]?
    var collectionsListed: FormFlag?

    enum CodingKeys: String, CodingKey {
        case name, description, icon, instructions, model, visibility
        case starters = "starter"
        case groups
        case collections = "collection"
        case collectionsListed = "collections_listed"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        icon = try container.decodeIfPresent(String.self, forKey: .icon)
        instructions = try container.decodeIfPresent(String.self, forKey: .instructions)
        model = try container.decodeIfPresent(String.self, forKey: .model)
        starters = try container.decodeIfPresent([String].self, forKey: .starters)
        visibility = try container.decodeIfPresent(String.self, forKey: .visibility)
        groups = try container.decodeIfPresent([GroupID].self, forKey: .groups)
        options = try GenerationOptionsFields(from: decoder)
        collections = try container.decodeIfPresent([CollectionID].self, forKey: .collections)
        collectionsListed = try container.decodeIfPresent(FormFlag.self, forKey: .collectionsListed)
    }

    /// The draft the form describes, or a 422 naming a field that cannot be read.
    func draft() throws(AppError) -> AssistantDraft {
        guard let visibility = Visibility(rawValue: visibility ?? "private") else {
            throw AppError(
                .unprocessableContent, code: "invalid_assistant", message: "Share with no one, everyone or groups.")
        }
        return AssistantDraft(
            name: name ?? "", description: description ?? "", icon: icon ?? "", instructions: instructions ?? "",
            model: model, options: try options.options(), starters: starters ?? [], visibility: visibility,
            groupIDs: visibility == .groups ? groups ?? [] : [])
    }
}
