import AsyncHTTPClient
import Foundation
import NIOCore
import ParleyCore
import ParleyJSON

/// Where a self-hosted server says a model's context window outside its model list: llama.cpp's server at
/// `GET /props` (the window of each of its slots, which is what one request gets) or in the list's `meta.n_ctx_train`,
/// and Ollama at `POST /api/show` (the model's `num_ctx`, else Ollama's smallest default within the trained length).
extension OpenAICompatibleProvider {
    /// The window Ollama gives a model that sets no `num_ctx`, at the least (4,096 tokens; more only with a large GPU
    /// or `OLLAMA_CONTEXT_LENGTH`, which the API does not show).
    static let ollamaDefaultWindow = 4_096
    /// The most models asked about one by one (Ollama) in one discovery.
    static let maxModelsAsked = 32

    /// `models` with a window for each the list gave none, where the server gives one elsewhere: the slot size of a
    /// llama.cpp server, else the trained window its list gave, else Ollama's; unchanged past `timeout`.
    public func withServerWindows(_ models: [ListedModel], timeout: Duration = .seconds(10)) async -> [ListedModel] {
        let unknown = models.filter { $0.contextWindow == nil }
        guard !unknown.isEmpty else { return models }
        let windows = try? await UpstreamDeadline(limit: timeout).run { [self] in
            if let slot = await llamaServerSlotWindow() {
                return Dictionary(unknown.map { ($0.id, slot) }, uniquingKeysWith: { first, _ in first })
            }
            if unknown.contains(where: { $0.trainedWindow != nil }) {
                return unknown.reduce(into: [String: Int]()) { $0[$1.id] = ListedModel.plausible($1.trainedWindow) }
            }
            return await ollamaWindows(of: unknown.prefix(Self.maxModelsAsked).map(\.id))
        }
        guard let windows else { return models }
        return models.map { model in
            var model = model
            model.contextWindow = model.contextWindow ?? windows[model.id]
            return model
        }
    }

    /// The server's root: the base URL without its `/v1`, where llama.cpp's and Ollama's own routes are.
    var serverRoot: String {
        connection.baseURL.hasSuffix("/v1") ? String(connection.baseURL.dropLast(3)) : connection.baseURL
    }

    /// The context window of each slot of a llama.cpp server (`default_generation_settings.n_ctx` of `GET /props`);
    /// nil from any other server.
    func llamaServerSlotWindow() async -> Int? {
        struct Props: Decodable {
            struct Settings: Decodable {
                var nCtx: Int?
                enum CodingKeys: String, CodingKey { case nCtx = "n_ctx" }
            }
            var defaultGenerationSettings: Settings?
            enum CodingKeys: String, CodingKey { case defaultGenerationSettings = "default_generation_settings" }
        }
        guard let body = try? await connection.answer(to: get(serverRoot + "/props"), upTo: 1024 * 1024),
            let props = try? JSONDecoder().decode(Props.self, from: Data(body.readableBytesView))
        else { return nil }
        return ListedModel.plausible(props.defaultGenerationSettings?.nCtx)
    }

    /// The context windows Ollama's `POST /api/show` gives for `models`, asked side by side; a model it does not
    /// describe (or a server that is not Ollama) is left out.
    func ollamaWindows(of models: [String]) async -> [String: Int] {
        await withTaskGroup(of: (String, Int?).self) { group in
            for model in models {
                group.addTask { (model, await ollamaWindow(of: model)) }
            }
            return await group.reduce(into: [:]) { windows, answer in windows[answer.0] = answer.1 }
        }
    }

    /// One model's window from Ollama's `POST /api/show`: its `num_ctx` parameter, else Ollama's default within the
    /// `*.context_length` it was trained with.
    private func ollamaWindow(of model: String) async -> Int? {
        var request = get(serverRoot + "/api/show")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: JSONText { $0.field("model", model) }.result))
        guard let body = try? await connection.answer(to: request, upTo: 8 * 1024 * 1024),
            let show = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any],
            show["parameters"] != nil || show["model_info"] != nil
        else { return nil }
        if let parameters = show["parameters"] as? String, let numCtx = Self.numCtx(in: parameters) {
            return ListedModel.plausible(numCtx)
        }
        let info = show["model_info"] as? [String: Any]
        let trained = info?.first { $0.key.hasSuffix(".context_length") }?.value as? Int
        return min(Self.ollamaDefaultWindow, trained ?? Self.ollamaDefaultWindow)
    }

    /// The `num_ctx` of an Ollama model's parameters (lines of a name and a value, separated by spaces).
    static func numCtx(in parameters: String) -> Int? {
        parameters.split(separator: "\n").lazy.compactMap { line -> Int? in
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            return words.count == 2 && words[0] == "num_ctx" ? Int(words[1]) : nil
        }.first
    }
}
