import HTTPTypes
import Hummingbird

/// Serves the public directory: fingerprinted names cached for a year, plain names revalidated, gzip when the
/// client takes it; the service worker at `/sw.js`, so that its scope covers every page; and the JSON API's OpenAPI
/// document (`Public/openapi.json`) at `/api/openapi.json`, beside the API it describes.
struct StaticAssetController {
    let assets: StaticAssets

    /// Adds the routes (outside authentication: these files are the same for everyone).
    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("/static/**") { request, context in
            let name = context.parameters.getCatchAll().joined(separator: "/")
            guard let asset = assets.asset(named: name) else { throw HTTPError(.notFound) }
            let cache = assets.isFingerprinted(name) ? "public, max-age=31536000, immutable" : "no-cache"
            return response(asset, cacheControl: cache, request: request)
        }
        router.get("/sw.js") { request, _ in
            guard let asset = assets.asset(named: "sw.js") else { throw HTTPError(.notFound) }
            var response = response(asset, cacheControl: "no-cache", request: request)
            response.headers[HTTPField.Name("Service-Worker-Allowed")!] = "/"
            return response
        }
        router.get("/api/openapi.json") { request, _ in
            guard let asset = assets.asset(named: "openapi.json") else { throw HTTPError(.notFound) }
            return response(asset, cacheControl: "no-cache", request: request)
        }
    }

    /// The asset's bytes (gzip when accepted and smaller) with its validators, or 304 when the client has them.
    private func response(_ asset: StaticAssets.Asset, cacheControl: String, request: Request) -> Response {
        // Weak: the gzip and plain bodies are the same resource, not the same bytes.
        let tag = "\"" + asset.hash + "\""
        var headers: HTTPFields = [.cacheControl: cacheControl, .eTag: "W/" + tag]
        if asset.gzipped != nil { headers[.vary] = "Accept-Encoding" }
        let known = request.headers[.ifNoneMatch]?.split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "W/", with: "")
        }
        if known?.contains(tag) == true {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = asset.contentType
        if let gzipped = asset.gzipped, Gzip.isAccepted(by: request) {
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: gzipped))
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: asset.body))
    }
}
