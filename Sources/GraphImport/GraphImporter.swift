import Foundation
import OSMReaderShim
import RoadGraph

/// What an import reports as it goes.
public enum ImportEvent: Sendable {
    /// Reading the file: pass 1 (ways, relations) or 2 (nodes), bytes done of total.
    case reading(pass: Int, done: UInt64, total: UInt64)
    case building(TravelMode)
    case built(ModeGraphStatistics)
    case warning(String)
}

public struct ImportSummary: Sendable {
    public var input: String
    public var output: String
    public var nodes = 0, ways = 0, relations = 0
    public var modes: [ModeGraphStatistics] = []
    public var seconds = 0.0
}

/// `wayfinder import`: OSM file → one graph file per mode in a directory. Everything is written to a temporary
/// sibling directory that replaces the output only when complete, so a failed or interrupted import leaves
/// either the previous graph or nothing.
public enum GraphImporter {
    public static func importGraphs(from input: String, to output: String,
                                    report: @escaping (ImportEvent) -> Void = { _ in }) throws -> ImportSummary
    {
        let started = Date()
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: input, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw ImportError.unreadableInput("no such file: \(input)")
        }
        var crcOK: Int32 = 0
        let checksum = wf_file_crc32(input, &crcOK)
        guard crcOK != 0 else { throw ImportError.unreadableInput("cannot read \(input)") }
        let size = (try? fileManager.attributesOfItem(atPath: input)[.size] as? UInt64) ?? 0

        let osm = try OSMData(reading: input) { pass, done, total in report(.reading(pass: pass, done: done, total: total)) }
        var summary = ImportSummary(input: input, output: output)
        summary.nodes = osm.nodeCount
        summary.ways = osm.wayCount
        summary.relations = osm.relationCount
        if osm.wayCount == 0 { report(.warning("\(input) contains no highway ways: both graphs are empty")) }

        let outputURL = URL(fileURLWithPath: output).standardizedFileURL
        let parent = outputURL.deletingLastPathComponent()
        let staging = parent.appendingPathComponent(".\(outputURL.lastPathComponent).importing-\(getpid())")
        do {
            try fileManager.createDirectory(at: parent, withIntermediateDirectories: true)
            try? fileManager.removeItem(at: staging)
            try fileManager.createDirectory(at: staging, withIntermediateDirectories: false)
        } catch {
            throw ImportError.cannotWrite("cannot create \(staging.path): \(error.localizedDescription)")
        }
        do {
            for mode in TravelMode.allCases {
                report(.building(mode))
                var builder = ModeGraphBuilder(osm: osm, profile: .for(mode))
                let (arrays, maxSpeed, mainMinimum, grid) = builder.build()
                var bounds = BoundingBox.empty
                for i in 0..<arrays.vertexLatitudes.count {
                    bounds.extend(Coordinate(fixedLatitude: arrays.vertexLatitudes[i], fixedLongitude: arrays.vertexLongitudes[i]))
                }
                let metadata = GraphMetadata(
                    mode: mode, sourceName: URL(fileURLWithPath: input).lastPathComponent, sourceChecksum: checksum,
                    sourceSize: size, bounds: bounds, maxSpeed: maxSpeed, mainComponentMinimumSize: mainMinimum,
                    grid: grid)
                try GraphFileWriter.write(arrays, metadata: metadata,
                                          to: staging.appendingPathComponent(GraphFormat.fileName(for: mode)).path)
                if builder.statistics.edges == 0 {
                    report(.warning("no roads usable for \(mode.rawValue) in \(input): that mode will answer NoSegment"))
                }
                report(.built(builder.statistics))
                summary.modes.append(builder.statistics)
            }
            try replaceDirectory(at: outputURL, with: staging)
        } catch {
            try? fileManager.removeItem(at: staging)
            throw error
        }
        summary.seconds = Date().timeIntervalSince(started)
        return summary
    }

    private static func replaceDirectory(at destination: URL, with staging: URL) throws {
        let fileManager = FileManager.default
        let retired = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).old-\(getpid())")
        if fileManager.fileExists(atPath: destination.path) {
            try? fileManager.removeItem(at: retired)
            if rename(destination.path, retired.path) != 0 {
                throw ImportError.cannotWrite("cannot replace \(destination.path): \(String(cString: strerror(errno)))")
            }
        }
        if rename(staging.path, destination.path) != 0 {
            let reason = String(cString: strerror(errno))
            _ = rename(retired.path, destination.path)
            throw ImportError.cannotWrite("cannot move the graph into \(destination.path): \(reason)")
        }
        try? fileManager.removeItem(at: retired)
    }
}
