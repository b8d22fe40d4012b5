import Testing

@testable import ParleyServer

/// The headers around uploads: reading a part's `Content-Disposition`, and writing the one an image is served with.
@Suite struct UploadHeaderTests {
    @Test(
        "a part's name and file name are read, quoted or bare, with escapes",
        arguments: [
            ("form-data; name=\"image\"; filename=\"cat.png\"", "image", "cat.png"),
            ("form-data; name=content", "content", nil),
            ("form-data; filename=\"a \\\"quoted\\\" name.png\"; name=\"image\"", "image", "a \"quoted\" name.png"),
            ("form-data; name=\"image\"; filename=\"semi;colon.png\"", "image", "semi;colon.png"),
            ("form-data; NAME=\"x\"; name=\"y\"", "x", nil),
            ("form-data", nil, nil),
        ])
    func contentDisposition(_ header: String, _ name: String?, _ fileName: String?) {
        let parsed = ContentDisposition(header)
        #expect(parsed.name == name)
        #expect(parsed.fileName == fileName)
    }

    @Test("a served image's disposition is inline, ASCII-safe and exact in RFC 5987 form, and cannot break the header")
    func inlineDisposition() {
        #expect(
            AttachmentController.inlineDisposition("cat.png")
                == "inline; filename=\"cat.png\"; filename*=UTF-8''cat.png")
        #expect(
            AttachmentController.inlineDisposition("été.png")
                == "inline; filename=\"_t_.png\"; filename*=UTF-8''%C3%A9t%C3%A9.png")
        let hostile = AttachmentController.inlineDisposition("a\"\r\nSet-Cookie: x=1\\.png")
        #expect(!hostile.contains("\r") && !hostile.contains("\n"))
        #expect(hostile.hasPrefix("inline; filename=\"a___Set-Cookie: x=1_.png\"; filename*=UTF-8''"))
    }
}
