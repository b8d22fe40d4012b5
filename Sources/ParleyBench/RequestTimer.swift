import AsyncHTTPClient
import Foundation

/// Times GET requests of one page, one after another, each read to its end.
struct RequestTimer {
    let client: HTTPClient
    let token: String
    /// Whether to ask for a gzip-compressed body, as browsers do.
    var gzip = false

    /// The times of one page's requests: the first (cold) one apart, and the body size of the last.
    struct Timings {
        var first: Double
        var milliseconds: [Double]
        var bytes: Int
    }

    /// Requests `url` once to warm up, then `count` times; returns the milliseconds of each and the body size.
    func time(_ url: String, count: Int) async throws -> Timings {
        var samples: [Double] = []
        let start = ContinuousClock.now
        var bytes = try await get(url)
        let first = start.duration(to: .now).milliseconds
        for _ in 0..<count {
            let start = ContinuousClock.now
            bytes = try await get(url)
            samples.append(start.duration(to: .now).milliseconds)
        }
        return Timings(first: first, milliseconds: samples, bytes: bytes)
    }

    /// One GET with the bearer token; fails unless it answers 200. Returns the body's size.
    func get(_ url: String) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        if gzip { request.headers.add(name: "Accept-Encoding", value: "gzip") }
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 64 << 20)
        guard response.status == .ok else { throw BenchError("GET \(url) answered \(response.status)") }
        return body.readableBytes
    }
}
