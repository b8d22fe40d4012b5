import Foundation

/// The reverse proxies whose forwarding headers Parley believes (`PARLEY_TRUSTED_PROXIES`: addresses and CIDR ranges,
/// IPv4 or IPv6). From one of them, the client is the right-most hop of `X-Forwarded-For` that is not itself a trusted
/// proxy (hops to its left were written by the client and prove nothing), and the scheme is `X-Forwarded-Proto`'s.
public struct TrustedProxies: Sendable, Equatable {
    /// One trusted range: the address's bytes and how many leading bits must match.
    struct Range: Sendable, Equatable {
        let bytes: [UInt8]
        let prefixLength: Int

        /// Whether `address` (4 or 16 bytes) lies in the range.
        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            for bit in 0..<prefixLength where (address[bit / 8] ^ bytes[bit / 8]) & (0x80 >> UInt8(bit % 8)) != 0 {
                return false
            }
            return true
        }
    }

    let ranges: [Range]

    /// No proxy is trusted: the socket's peer is the client.
    public static let none = TrustedProxies(ranges: [])

    private init(ranges: [Range]) {
        self.ranges = ranges
    }

    /// Parses a comma- or space-separated list such as `127.0.0.1, 10.0.0.0/8, ::1`; nil when an entry is not an
    /// address or a range.
    public init?(list: String) {
        var ranges: [Range] = []
        for entry in list.split(whereSeparator: { $0 == "," || $0 == " " }) {
            let parts = entry.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2, let bytes = Self.addressBytes(String(parts[0])) else { return nil }
            let length = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
            guard let length, (0...bytes.count * 8).contains(length) else { return nil }
            ranges.append(Range(bytes: bytes, prefixLength: length))
        }
        guard !ranges.isEmpty else { return nil }
        self.ranges = ranges
    }

    /// Whether `address` is a trusted proxy's.
    func trusts(_ address: String) -> Bool {
        guard !ranges.isEmpty, let bytes = Self.addressBytes(address) else { return false }
        return ranges.contains { $0.contains(bytes) }
    }

    /// The client's address: `peer` unless it is trusted, else the right-most hop of the `X-Forwarded-For` values that
    /// is not trusted (the left-most when all are; the nearest trusted hop when the next one is not an address).
    func clientAddress(peer: String, forwardedFor: [String]) -> String {
        guard trusts(peer) else { return peer }
        var client = peer
        for hop in forwardedFor.flatMap({ $0.split(separator: ",") }).reversed() {
            guard let address = Self.hopAddress(hop.trimmingCharacters(in: .whitespaces)) else { return client }
            client = address
            if !trusts(address) { return address }
        }
        return client
    }

    /// Whether the proxy says the client used HTTPS: the last `X-Forwarded-Proto` value, from a trusted `peer` only.
    func forwardedHTTPS(peer: String, forwardedProto: [String]) -> Bool {
        guard trusts(peer), let last = forwardedProto.flatMap({ $0.split(separator: ",") }).last else { return false }
        return last.trimmingCharacters(in: .whitespaces).lowercased() == "https"
    }

    /// A hop's address in its usual forms (`1.2.3.4`, `1.2.3.4:80`, `::1`, `[::1]:80`), canonical; nil otherwise.
    static func hopAddress(_ hop: String) -> String? {
        var text = Substring(hop)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            text = text[text.index(after: text.startIndex)..<close]
        } else if text.filter({ $0 == ":" }).count == 1 {
            text = text.prefix { $0 != ":" }
        }
        return addressBytes(String(text)).map(canonical)
    }

    /// The bytes of an IPv4 (4) or IPv6 (16) address; an IPv4-mapped IPv6 address gives its IPv4 bytes.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xff, 0xff]
        return Array(bytes.prefix(12)) == mappedPrefix ? Array(bytes.suffix(4)) : bytes
    }

    /// An address's usual text, from its bytes.
    static func canonical(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
