import Engine
import Foundation
import GraphImport
import HTTPService
import RoadGraph

/// OSRM itself, from PyPI's `osrm-bindings` wheel (`scripts/install-osrm.sh` puts it in a venv of its own), serving
/// a drawn map or an extract: the reference the differential tests compare Wayfinder's answers with. Tests that
/// need it are skipped with a message where the wheel is not installed.
final class OSRMOracle {
    /// The wheel's `osrm/bin`: `$WAYFINDER_OSRM_BIN`, else where `scripts/install-osrm.sh` installs by default.
    static let binDirectory: String? = {
        let fm = FileManager.default
        func complete(_ dir: String) -> Bool {
            ["osrm-extract", "osrm-contract", "osrm-routed"].allSatisfy { fm.isExecutableFile(atPath: dir + "/" + $0) }
        }
        if let dir = ProcessInfo.processInfo.environment["WAYFINDER_OSRM_BIN"], !dir.isEmpty { return complete(dir) ? dir : nil }
        let cache = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"] ?? (NSHomeDirectory() + "/.cache")
        let lib = cache + "/wayfinder/osrm-venv/lib"
        let pythons = (try? fm.contentsOfDirectory(atPath: lib))?.filter { $0.hasPrefix("python3") }.sorted() ?? []
        return pythons.map { "\(lib)/\($0)/site-packages/osrm/bin" }.first(where: complete)
    }()

    static var available: Bool { binDirectory != nil }
    static let skipMessage = "OSRM's wheel is not installed (scripts/install-osrm.sh, or set WAYFINDER_OSRM_BIN)"

    let directory: TemporaryDirectory
    let process = Process()
    let port: Int
    var base: String { "http://127.0.0.1:\(port)" }

    /// Extracts and contracts `osm` (XML or PBF) with the wheel's `profile` (car, foot) and serves it;
    /// `contractArguments` go to osrm-contract (traffic files).
    init(osm: String, profile: String, fileExtension: String = "osm", extractArguments: [String] = [],
         contractArguments: [String] = []) throws {
        guard let bin = Self.binDirectory else { throw OracleMismatch(message: Self.skipMessage) }
        directory = try TemporaryDirectory()
        let input = directory.path + "/map.\(fileExtension)"
        try FileManager.default.copyItem(atPath: osm, toPath: input)
        let profiles = URL(fileURLWithPath: bin).deletingLastPathComponent().appendingPathComponent("share/profiles").path
        let extract = try Subprocess.run(bin + "/osrm-extract", ["-p", profiles + "/\(profile).lua"] + extractArguments + [input])
        guard extract.status == 0 else { throw OracleMismatch(message: "osrm-extract failed: \(extract.stderr)") }
        let data = directory.path + "/map.osrm"
        let contract = try Subprocess.run(bin + "/osrm-contract", [data] + contractArguments)
        guard contract.status == 0 else { throw OracleMismatch(message: "osrm-contract failed: \(contract.stderr)") }
        // A port free a moment ago, given to osrm-routed (which cannot pick one itself).
        port = try DeploymentTests.freePort()
        process.executableURL = URL(fileURLWithPath: bin + "/osrm-routed")
        process.arguments = ["--algorithm", "ch", "--ip", "127.0.0.1", "--port", "\(port)", "--max-table-size", "10000", data]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if (try? ServerTests.get(base + "/nearest/v1/driving/0,0"))?.status ?? 0 > 0 { return }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        throw OracleMismatch(message: "osrm-routed did not start on port \(port)")
    }

    /// Writes a drawn map and serves it with OSRM.
    /// Wayfinder, importing an extract with OSRM's rules and answering with them, beside OSRM on the same extract
    /// (`fileExtension` as OSRM's extractor reads it). The oracle keeps Wayfinder's graph directory while it lives.
    static func beside(extract: String, fileExtension: String, profile: String, mode: TravelMode) throws
        -> (service: WayfinderService, osrm: OSRMOracle) {
        let directory = try TemporaryDirectory()
        _ = try GraphImporter.importGraphs(from: extract, to: directory.path + "/g", compatibility: .osrm, modes: [mode])
        let service = WayfinderService(engine: try Engine(directory: directory.path + "/g"), compatibility: .osrm)
        let osrm = try OSRMOracle(osm: extract, profile: profile, fileExtension: fileExtension)
        osrm.graphDirectory = directory
        return (service, osrm)
    }
    private var graphDirectory: TemporaryDirectory?

    convenience init(map: TestMap, profile: String, extractArguments: [String] = [], contractArguments: [String] = []) throws {
        let file = try TemporaryDirectory()
        try map.xml().write(toFile: file.path + "/map.osm", atomically: true, encoding: .utf8)
        try self.init(osm: file.path + "/map.osm", profile: profile, extractArguments: extractArguments,
                      contractArguments: contractArguments)
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// OSRM's answer to a request target (`/route/v1/driving/…?…`): HTTP status and JSON body.
    func json(_ target: String) throws -> (status: Int, object: [String: Any]) {
        try ServerTests.json(base + target)
    }
}

extension WayfinderService {
    /// The answer to a request target as the server would give it, without a socket.
    func json(_ target: String) throws -> (status: Int, object: [String: Any]) {
        let parts = target.split(separator: "?", maxSplits: 1)
        var query: [(key: String, value: String)] = []
        for pair in parts.count > 1 ? parts[1].split(separator: "&") : [] {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            query.append((String(kv[0]).removingPercentEncoding ?? "", kv.count > 1 ? String(kv[1]).removingPercentEncoding ?? "" : ""))
        }
        let response = handle(HTTPRequest(path: String(parts[0]), query: query, rawTarget: target))
        let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
        return (response.status, object)
    }
}
