import ArgumentParser
import Foundation
import ParleyCore
import ParleyStore

/// `parley-bench retrieval`: a knowledge collection of many documents of many pages, read into a real SQLite file,
/// then questions of a few words each ranked against it as a reply does: milliseconds a retrieval.
struct RetrievalBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retrieval", abstract: "Time retrieval from a large knowledge collection.")

    @Option(help: "Documents in the collection.") var documents = 1_000
    @Option(help: "Pages a document.") var pages = 50
    @Option(help: "Questions timed.") var questions = 300
    @Option(help: "Tokens the passages may take, as a reply's budget.") var budget = 16_000
    @Option(help: "Where to write the JSON results.") var output = "bench-results/retrieval.json"

    /// Refuses counts that would time nothing.
    func validate() throws {
        guard documents > 0, pages > 0, questions > 0, budget > 0 else {
            throw ValidationError("every count must be positive")
        }
    }

    func run() async throws {
        let folder = try TemporaryFolder()
        let database = try ParleyDatabase(directory: folder.path)
        let user = try await SQLiteAccountStore(database: database).createUser(
            email: "reader@example.com", passwordHash: "-", isAdmin: false)
        let collection = try await SQLiteKnowledgeStore(database: database).createCollection(
            userID: user.id, name: "Library", description: "")
        let store = SQLiteDocumentStore(database: database)
        var words = WordSource(seed: 42)
        let loading = ContinuousClock.now
        for index in 0..<documents {
            let document = try await store.addDocument(
                NewDocument(
                    name: "document-\(index).pdf", kind: .pdf, bytes: Array("%PDF-1.4".utf8),
                    place: .collection(collection.id)), userID: user.id)
            // A page of about 350 tokens, one chunk, as the chunker makes of a page of prose.
            let texts = (0..<pages).map { _ in words.sentence(count: 300) }
            let chunks = texts.enumerated().map { DocumentChunk(ordinal: $0, page: $0 + 1, text: $1) }
            try await store.saveReading(.read(pages: texts, chunks: chunks), documentID: document.id)
        }
        let loadSeconds = loading.duration(to: .now) / .seconds(1)
        var timings: [Double] = []
        var found = 0
        for _ in 0..<questions {
            let question = "What does the library say about " + words.sentence(count: 4) + "?"
            let started = ContinuousClock.now
            let passages = try await store.passages(
                for: SourceQuery(documentIDs: [], collectionIDs: [collection.id], question: question, budget: budget))
            timings.append(started.duration(to: .now) / .milliseconds(1))
            found += passages.count
        }
        timings.sort()
        let result = MicroResult(
            benchmark: "retrieval (\(documents) documents × \(pages) pages)",
            figures: [
                "load seconds": loadSeconds,
                "retrieval ms p50": timings[timings.count / 2],
                "retrieval ms p95": timings[timings.count * 95 / 100],
                "passages per question": Double(found) / Double(questions),
            ],
            goal: "p50 under 50 ms (issue #40)")
        try result.report(to: output)
    }
}

/// Words of a made-up language with a long tail, as real text has: a few very common words and many rare ones.
struct WordSource {
    private var generator: SplitMix64
    private let vocabulary: [String]

    /// A source whose words and draws follow from `seed`.
    init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
        let syllables = ["ka", "lo", "ri", "ne", "tu", "sa", "mi", "po", "ve", "dan", "gor", "lin", "tas", "ber"]
        var vocabulary: [String] = []
        for first in syllables {
            for second in syllables {
                for third in syllables { vocabulary.append(first + second + third) }
            }
        }
        self.vocabulary = vocabulary
    }

    /// `count` words, drawn with a Zipf-like skew (the square of a uniform draw favours the first words).
    mutating func sentence(count: Int) -> String {
        (0..<count).map { _ in
            let uniform = Double(generator.next() % 1_000_000) / 1_000_000
            return vocabulary[Int(uniform * uniform * Double(vocabulary.count))]
        }.joined(separator: " ")
    }
}
