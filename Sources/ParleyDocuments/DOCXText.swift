import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A DOCX's text: its `word/document.xml`, taken out by `unzip` in a child process (whose file-size limit stops a ZIP
/// bomb), read with Foundation's XML parser: each paragraph a line, tabs and breaks kept.
enum DOCXText {
    /// The text of the DOCX in `file`.
    static func text(of file: String, runner: ChildProcess) async throws(DocumentRejection) -> String {
        let output = file + ".xml"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let run: ChildProcess.Output
        do {
            run = try await runner.run("/usr/bin/unzip", ["-p", file, "word/document.xml"], standardOutput: output)
        } catch {
            switch error {
            case .overLimit: throw .tooCostly
            case .notStarted: throw .unsupported(name: "DOCX (unzip is not installed)")
            }
        }
        guard run.status == 0, let xml = FileManager.default.contents(atPath: output), !xml.isEmpty else {
            throw .malformed
        }
        let reader = DocumentXMLReader()
        let parser = XMLParser(data: xml)
        parser.delegate = reader
        parser.shouldResolveExternalEntities = false
        guard parser.parse() else { throw .malformed }
        let text = reader.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw .noText }
        return text
    }
}

/// Collects the text runs (`w:t`) of a WordprocessingML body: a line a paragraph (`w:p`), `w:tab` a tab, `w:br` a
/// line break.
private final class DocumentXMLReader: NSObject, XMLParserDelegate {
    var text = ""
    private var inText = false

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        switch name {
        case "w:t": inText = true
        case "w:tab": text += "\t"
        case "w:br": text += "\n"
        default: break
        }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        switch name {
        case "w:t": inText = false
        case "w:p": text += "\n"
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if inText { text += string }
    }
}
