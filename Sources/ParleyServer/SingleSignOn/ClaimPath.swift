/// A claim named by a dotted path (`groups`, `realm_access.roles`), read as a list of strings: an array's strings,
/// or a single string as a list of one.
struct ClaimPath: Sendable, Equatable {
    let components: [String]

    /// The path `name`, split at dots.
    init(_ name: String) {
        components = name.split(separator: ".").map(String.init)
    }

    /// The strings at the path in `claims`; nil when the path leads nowhere.
    func strings(in claims: [String: Any]) -> [String]? {
        var value: Any? = claims
        for component in components {
            value = (value as? [String: Any])?[component]
        }
        switch value {
        case let text as String: return [text]
        case let list as [Any]: return list.compactMap { $0 as? String }
        default: return nil
        }
    }
}
