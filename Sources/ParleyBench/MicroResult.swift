import Foundation

/// One microbenchmark's outcome: named figures, printed as a table and written as JSON.
struct MicroResult: Codable {
    var benchmark: String
    var figures: [String: Double]
    var goal: String?

    /// Prints the figures as a two-column table and writes them as JSON to `path`.
    func report(to path: String) throws {
        print("\(benchmark):")
        for (name, value) in figures.sorted(by: { $0.key < $1.key }) {
            print("  " + name.padding(toLength: 28, withPad: " ", startingAt: 0) + String(format: "%12.3f", value))
        }
        if let goal { print("  goal: \(goal)") }
        try JSONFile.write(self, to: path)
    }
}
