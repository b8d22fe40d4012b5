import Foundation
import Hummingbird

extension Response {
    /// A file download: `Content-Disposition: attachment` with a name that is safe whatever `baseName` holds.
    static func download(
        _ body: ByteBuffer, contentType: String, baseName: String, fallbackName: String,
        fileExtension: String
    ) -> Response {
        let filename = downloadFilename(baseName, fallback: fallbackName) + "." + fileExtension
        return Response(
            status: .ok,
            headers: [
                .contentType: contentType, .cacheControl: "no-store",
                .contentDisposition: "attachment; filename=\"\(filename)\"",
            ],
            body: .init(byteBuffer: body))
    }

    /// A lower-case ASCII file name from a title: letters and digits kept, every other run turned into one `-`,
    /// at most 60 characters; `fallback` when nothing is left. It never holds a quote, a backslash or a line break.
    static func downloadFilename(_ title: String, fallback: String) -> String {
        var name = ""
        for scalar in title.lowercased().unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                name.unicodeScalars.append(scalar)
            } else if !name.isEmpty, !name.hasSuffix("-") {
                name.append("-")
            }
        }
        let trimmed = String(name.prefix(60)).trimmingCharacters(in: ["-"])
        return trimmed.isEmpty ? fallback : trimmed
    }
}
