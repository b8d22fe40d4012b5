#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// libFuzzer's entry point for programs that have their own `main` (SwiftPM's executables do); each target still
/// exports `LLVMFuzzerTestOneInput`, which libFuzzer's runtime names.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                                 _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                                 _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

/// Runs libFuzzer with the process's arguments, handing each input to `fuzzOne` (as bytes); exits with its status.
public func runFuzzer(_ fuzzOne: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
}

/// The input as an array (libFuzzer passes a null pointer for the empty input).
public func fuzzInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
    guard let start, count > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: start, count: count))
}
