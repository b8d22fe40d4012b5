import Foundation

/// Documents the tests make themselves: PDFs written object by object, DOCX files zipped by Python's `zipfile`, and a
/// password-protected PDF encrypted by qpdf.
enum Fixtures {
    /// A PDF with one page per string, each showing its text in Helvetica (an empty string: a page without text).
    static func pdf(pages: [String]) -> [UInt8] {
        var objects: [String] = []
        let pageCount = pages.count
        // 1: catalog, 2: pages, 3: font, then a page and its content stream for each page.
        objects.append("<< /Type /Catalog /Pages 2 0 R >>")
        let kids = (0..<pageCount).map { "\(4 + 2 * $0) 0 R" }.joined(separator: " ")
        objects.append("<< /Type /Pages /Kids [\(kids)] /Count \(pageCount) >>")
        objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
        for (index, text) in pages.enumerated() {
            objects.append(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
                    + "/Contents \(5 + 2 * index) 0 R >>")
            let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "(", with: "\\(")
                .replacingOccurrences(of: ")", with: "\\)")
            let stream = text.isEmpty ? "" : "BT /F1 12 Tf 72 720 Td (\(escaped)) Tj ET"
            objects.append("<< /Length \(stream.utf8.count) >>\nstream\n\(stream)\nendstream")
        }
        var out = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(out.utf8.count)
            out += "\(index + 1) 0 obj\n\(object)\nendobj\n"
        }
        let xref = out.utf8.count
        out += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { out += String(format: "%010d 00000 n \n", offset) }
        out += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return Array(out.utf8)
    }

    /// The PDF of `pages` encrypted with a user password, by qpdf.
    static func encryptedPDF(pages: [String]) throws -> [UInt8] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let plain = directory.appendingPathComponent("plain.pdf")
        let locked = directory.appendingPathComponent("locked.pdf")
        try Data(pdf(pages: pages)).write(to: plain)
        try run("/usr/bin/qpdf", ["--encrypt", "secret", "owner", "256", "--", plain.path, locked.path])
        return [UInt8](try Data(contentsOf: locked))
    }

    /// A DOCX whose body has one paragraph per string; `padding` adds that many zero bytes of XML comment (a ZIP
    /// bomb's shape: tiny compressed, huge uncompressed).
    static func docx(paragraphs: [String], padding: Int = 0) throws -> [UInt8] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.docx")
        let body = paragraphs.map { "<w:p><w:r><w:t>\($0)</w:t></w:r></w:p>" }.joined()
        let script = """
            import sys, zipfile
            body, padding, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
            xml = ('<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/'
                   'wordprocessingml/2006/main"><w:body>' + body + '</w:body></w:document>')
            with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as z:
                z.writestr('[Content_Types].xml', '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>')
                if padding:
                    with z.open('word/document.xml', 'w', force_zip64=True) as f:
                        f.write(xml.encode()[:-len('</w:body></w:document>')])
                        f.write(b'<!--')
                        chunk = b' ' * (1 << 20)
                        for _ in range(padding >> 20):
                            f.write(chunk)
                        f.write(b'-->' + b'</w:body></w:document>')
                else:
                    z.writestr('word/document.xml', xml)
            """
        try run("/usr/bin/python3", ["-c", script, body, String(padding), output.path])
        return [UInt8](try Data(contentsOf: output))
    }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw FixtureError(tool: tool) }
    }

    struct FixtureError: Error {
        var tool: String
    }
}
