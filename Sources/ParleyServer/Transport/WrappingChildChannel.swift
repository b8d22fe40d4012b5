import HummingbirdCore
import Logging

/// A child channel that adds to the setup of the channel it wraps, which then handles the connection.
protocol WrappingChildChannel: ServerChildChannel where Value == Base.Value {
    associatedtype Base: ServerChildChannel
    /// The wrapped channel.
    var base: Base { get }
}

extension WrappingChildChannel {
    /// Handles the connection with the wrapped channel.
    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
