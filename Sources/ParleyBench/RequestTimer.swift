import AsyncHTTPClient
import Foundation

/// Times GET requests of one page, one after another, each read to its end.
struct RequestTimer {
    let client: HTTPClient
    let token: String

    /// Requests `url` once to warm up, then `count` times; returns the milliseconds of each and the body size.
    func time(_ url: String, count: Int) async throws -> (milliseconds: [Double], bytes: Int) {
        var samples: [Double] = []
        var bytes = try await get(url)
        for _ in 0..<count {
            let start = ContinuousClock.now
            bytes = try await get(url)
            samples.append(start.duration(to: .now).milliseconds)
        }
        return (samples, bytes)
    }

    /// One GET with the bearer token; fails unless it answers 200. Returns the body's size.
    private func get(_ url: String) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 64 << 20)
        guard response.status == .ok else { throw BenchError("GET \(url) answered \(response.status)") }
        return body.readableBytes
    }
}
