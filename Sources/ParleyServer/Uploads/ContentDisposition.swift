import Foundation

/// The parameters of a part's `Content-Disposition: form-data; name="…"; filename="…"` header.
struct ContentDisposition {
    var name: String?
    var fileName: String?

    /// Parses the header's value: `;`-separated parameters, values bare or quoted (with `\` escapes).
    init(_ value: String) {
        var parameters: [String: String] = [:]
        var rest = Substring(value)
        while let separator = rest.firstIndex(of: ";") {
            rest = rest[rest.index(after: separator)...].drop(while: { $0 == " " || $0 == "\t" })
            guard let equals = rest.firstIndex(of: "=") else { break }
            let key = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...]
            var parsed = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped {
                        parsed.append(character); escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        break
                    } else {
                        parsed.append(character)
                    }
                }
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                parsed = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
            if parameters[key] == nil { parameters[key] = parsed }
        }
        name = parameters["name"]
        fileName = parameters["filename"]
    }
}
