import Foundation
import Testing

/// Hostile text for one field a user (or an upstream, or an import) controls, tagged with the field's name so that a
/// page can be shown to display that very field.
struct HostileText: Sendable {
    /// A plain lower-case word naming the field; every escaping and the search tokenizer keep it as it is.
    let tag: String

    /// Script, an event handler written without spaces (so that it also fits an email address), a break-out of a
    /// quoted attribute and of a text box, and a mustache section that would print the viewer's email if the text
    /// were ever rendered as a template.
    var text: String {
        tag + #"<script>alert(1)</script>"'><svg/onload=alert(2)></textarea>{{#user}}{{email}}{{/user}}"#
    }

    /// `text` escaped as HTML text or a quoted attribute value (the escapes of the templates and of `HTMLText`).
    var escaped: String {
        tag
            + "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;svg/onload=alert(2)&gt;&lt;/textarea&gt;{{#user}}{{email}}{{/user}}"
    }

    /// How the start of `text` reads once rendered as markdown, whose safe mode leaves raw HTML out.
    var rendered: String { tag + "<!-- raw HTML omitted -->alert(1)<!-- raw HTML omitted -->" }

    /// An email address holding `text`, valid by the sign-up rules (one `@`, no space, a dot in the domain).
    var email: String { text + "@evil.example" }
}

/// Checks that a page shows hostile text only as text: none of `HostileText`'s markup, no event handler attribute, no
/// script URL and no inline script anywhere on the page.
enum InertHTML {
    /// The markup of `HostileText` as it would read had it not been escaped.
    static let rawMarkers = ["<script>alert", "<svg/onload", "</textarea>{{", "<img src=x"]
    /// The attributes that hold a URL the browser loads or follows.
    static let urlAttributes: Set<String> = ["href", "src", "action", "formaction", "xlink:href", "poster", "data"]
    /// Schemes that run script or a document of the attacker's.
    static let dangerousSchemes = ["javascript:", "vbscript:", "data:text/html", "data:image/svg"]

    /// Every problem found in `html`; empty when it is inert.
    static func problems(in html: String) -> [String] {
        var problems = rawMarkers.filter { html.contains($0) }.map { "raw \($0)" }
        for tag in html.matches(of: /<([a-zA-Z][a-zA-Z0-9:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/) {
            let name = tag.1.lowercased()
            let attributes = self.attributes(String(tag.2))
            for (attribute, value) in attributes {
                if attribute.hasPrefix("on") { problems.append("event handler in \(tag.0)") }
                // Browsers drop spaces and control characters inside a URL's scheme.
                let visible = decoded(value).unicodeScalars.filter { $0.value > 0x20 && $0.value != 0x7F }
                let url = String(String.UnicodeScalarView(visible)).lowercased()
                if urlAttributes.contains(attribute), dangerousSchemes.contains(where: url.hasPrefix) {
                    problems.append("script URL in \(tag.0)")
                }
            }
            if name == "script", !attributes.contains(where: { $0.0 == "src" && $0.1.hasPrefix("/static/") }) {
                problems.append("inline or foreign script \(tag.0)")
            }
            if ["iframe", "object", "embed", "base"].contains(name) { problems.append("embedding tag \(tag.0)") }
        }
        return problems
    }

    /// The attributes of a tag's text after its name, as lower-cased names and raw values, the way a browser splits
    /// them (`/` separates attributes too, so `<svg/onload=x>` has an `onload`).
    static func attributes(_ text: String) -> [(String, String)] {
        text.matches(of: /[\s\/]*([^\s\/>"'=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]*)))?/).map { match in
            (match.1.lowercased(), String(match.2 ?? match.3 ?? match.4 ?? ""))
        }
    }

    /// `text` with numeric character references and the named ones that can spell a scheme decoded.
    static func decoded(_ text: String) -> String {
        let named = ["colon": ":", "tab": "\t", "newline": "\n", "amp": "&"]
        return text.replacing(/&(#[xX][0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);?/) { match in
            let reference = String(match.1)
            let scalar =
                reference.hasPrefix("#x") || reference.hasPrefix("#X")
                ? UInt32(reference.dropFirst(2), radix: 16)
                : reference.hasPrefix("#") ? UInt32(reference.dropFirst()) : nil
            return scalar.flatMap(Unicode.Scalar.init).map(String.init) ?? named[reference.lowercased()]
                ?? String(match.0)
        }
    }

    /// Expects `page` to have `status` (200 unless told) and inert HTML.
    static func expectInert(
        _ page: TestResponse, _ name: String, status: Int = 200, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(page.status == status, "\(name) answered \(page.status)", sourceLocation: sourceLocation)
        #expect(problems(in: page.body) == [], "\(name)", sourceLocation: sourceLocation)
    }

    /// Expects `page` to be inert and to hold every one of `shown` (the escaped or rendered forms of its fields).
    static func expectShows(
        _ page: TestResponse, _ name: String, _ shown: [String], status: Int = 200,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        expectInert(page, name, status: status, sourceLocation: sourceLocation)
        for text in shown {
            #expect(page.body.contains(text), "\(name) does not show \(text)", sourceLocation: sourceLocation)
        }
    }
}
