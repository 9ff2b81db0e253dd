import Foundation

/// What the tests need beyond the package itself. A test that needs something absent is marked skipped with
/// `.enabled(if:)`, so it shows as a skip in the results, never as a pass.
enum Available {
    static func sharedFile(_ name: String) -> Bool {
        FileManager.default.fileExists(atPath: OracleTests.sharedData.appendingPathComponent(name).path)
    }

    static let porto = sharedFile("r5-porto_portugal.osm.pbf")
    static let portoCentre = sharedFile("vh-bench-porto.osm.pbf")
    static let monaco = sharedFile("nominatim-monaco-latest.osm.pbf")
    static let oddFiles = sharedFile("odd/bautzen.osm")
    static let leaflet = FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.js")
    static let protoc = FileManager.default.isExecutableFile(atPath: "/usr/bin/protoc")
    static let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].contains(where: FileManager.default.isExecutableFile)
    /// dask.distributed, pyarrow and protobuf for the cluster table package (cluster/).
    static let dask: Bool = {
        guard let run = try? Subprocess.run("/usr/bin/env", ["python3", "-c", "import dask.distributed, pyarrow, google.protobuf"])
        else { return false }
        return run.status == 0
    }()
    static let strace = FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first(where: FileManager.default.isExecutableFile)

    /// Whether `python3` can import these modules.
    static func python(_ modules: String) -> Bool {
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        check.arguments = ["python3", "-c", "import \(modules)"]
        check.standardError = FileHandle.nullDevice
        check.standardOutput = FileHandle.nullDevice
        guard (try? check.run()) != nil else { return false }
        check.waitUntilExit()
        return check.terminationStatus == 0
    }

    static let routingpy = python("routingpy, polyline")

    /// Memory figures mean nothing under AddressSanitizer (shadow memory, quarantine): set by scripts/sanitize.sh.
    static let plainMemory = ProcessInfo.processInfo.environment["ASAN_OPTIONS"] == nil
}
