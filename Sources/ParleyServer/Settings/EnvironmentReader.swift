import Foundation

/// A setting that is set but cannot be used; its description names the variable, the value and what was expected.
public struct SettingsError: Error, Equatable, CustomStringConvertible {
    public let name: String
    public let value: String
    public let expected: String

    public var description: String { "\(name)=\(value) cannot be used: expected \(expected)." }
}

/// Reads settings from environment variables: unset or empty means the default, anything unparsable is an error.
struct EnvironmentReader {
    let environment: [String: String]

    /// The variable's text, nil when unset or empty.
    func text(_ name: String) -> String? {
        environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The variable parsed by `parse`, nil when unset; throws when `parse` refuses it.
    func value<T>(_ name: String, expected: String, _ parse: (String) -> T?) throws(SettingsError) -> T? {
        guard let raw = text(name) else { return nil }
        guard let value = parse(raw.trimmingCharacters(in: .whitespaces)) else {
            throw SettingsError(name: name, value: raw, expected: expected)
        }
        return value
    }

    /// A switch given as on or off (also true/false, 1/0).
    func flag(_ name: String) throws(SettingsError) -> Bool? {
        try value(name, expected: "on or off") { text in
            ["on": true, "true": true, "1": true, "off": false, "false": false, "0": false][text.lowercased()]
        }
    }

    /// A duration given in (possibly fractional) seconds.
    func seconds(_ name: String, positive: Bool) throws(SettingsError) -> Duration? {
        try value(name, expected: positive ? "a number of seconds above 0" : "a number of seconds, 0 or more") { text in
            Double(text).filter { $0.isFinite && (positive ? $0 > 0 : $0 >= 0) }.map {
                Duration.milliseconds(Int64($0 * 1000))
            }
        }
    }
}

extension Optional {
    /// The value when it passes `isIncluded`, else nil.
    func filter(_ isIncluded: (Wrapped) -> Bool) -> Wrapped? {
        flatMap { isIncluded($0) ? $0 : nil }
    }
}
