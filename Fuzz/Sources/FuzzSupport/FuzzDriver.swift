#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// libFuzzer's entry point for programs that have their own `main` (SwiftPM's executables do); each target still
/// exports `LLVMFuzzerTestOneInput`, which libFuzzer's runtime names.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Runs libFuzzer with the process's arguments, handing each input to `fuzzOne` (as bytes); exits with its status.
public func runFuzzer(_ fuzzOne: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
}

/// One fuzzer input: its first byte seeds where the rest, `data`, is cut into the pieces a stream would deliver.
public struct FuzzInput {
    /// The input after its first byte.
    public let data: [UInt8]
    private let seed: UInt8

    /// Reads libFuzzer's input (a null pointer for the empty one); nil when it has no byte after the seed.
    public init?(_ start: UnsafePointer<UInt8>?, _ count: Int) {
        guard let start, count > 1 else { return nil }
        seed = start.pointee
        data = Array(UnsafeBufferPointer(start: start + 1, count: count - 1))
    }

    /// `collection` cut into consecutive pieces of 1 to 64 elements, their sizes drawn from the seed.
    public func pieces<C: Collection>(of collection: C) -> [C.SubSequence] {
        var state = UInt64(seed) | 1
        var pieces: [C.SubSequence] = []
        var start = collection.startIndex
        while start < collection.endIndex {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let end =
                collection.index(start, offsetBy: Int(state >> 58) + 1, limitedBy: collection.endIndex)
                ?? collection.endIndex
            pieces.append(collection[start..<end])
            start = end
        }
        return pieces
    }
}
