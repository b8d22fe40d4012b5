import Foundation
import ParleyCore

extension TurnImage {
    /// The bytes in base64, as every vendor's JSON carries images.
    var base64: String { Data(bytes).base64EncodedString() }
}
