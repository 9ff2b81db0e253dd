import Engine
import Foundation
import HTTPAPI

/// Entry point: dispatch to a command, print errors on stderr, exit with the documented code.
let version = "0.1.0"

let usage = """
wayfinder \(version): routing on OpenStreetMap data

Usage:
  wayfinder import <file.osm.pbf|.osm|.osm.gz|.osm.bz2> --output <dir> [--quiet]
  wayfinder customize --graph <dir> [--mode M] [--segment-speeds FILE] [--turn-penalties FILE] [--name NAME]
  wayfinder route --graph <dir> [--mode driving|walking|cycling] [--format text|json|geojson|polyline|polyline6]
                  [--language en|zh] [--units metric|imperial] <lat,lon> <lat,lon> [<lat,lon> ...]
  wayfinder matrix --graph <dir> [--mode driving|walking|cycling] --sources S [--destinations D] [--format csv|json|protobuf]
  wayfinder trip --graph <dir> [--mode driving|walking|cycling] [--roundtrip true|false] <lat,lon> <lat,lon> ...
  wayfinder match --graph <dir> [--mode driving|walking|cycling] [--format text|json|geojson] <trace.gpx>
  wayfinder navigate --graph <dir> [--mode driving|walking|cycling] (--route <route.json> | <from> <to>) <trace.gpx>
  wayfinder reach --graph <dir> [--mode driving|walking|cycling] --minutes 5,10,15 <lat,lon | place>
  wayfinder geocode --graph <dir> [--near lat,lon] [--limit N] [--format text|json|geojson] "query"
  wayfinder reverse --graph <dir> lat,lon
  wayfinder search --graph <dir> --near lat,lon [--radius 2km] "school"
  wayfinder geobench --graph <dir>
  wayfinder serve --graph <dir> [--host 127.0.0.1] [--port 5000] [--threads N]
  wayfinder info --graph <dir>
  wayfinder bench --graph <dir> [--mode driving|walking|cycling] [--queries N] [--seed S]
  wayfinder guidebench --graph <dir> [--mode driving|walking|cycling] [--pairs N] [--seed S] [--print K]
  wayfinder servicebench --graph <dir> [--seed S] [--only isochrone|trip|match]
  wayfinder bench-library --graph <dir> --pairs FILE [--mode driving|walking|cycling] [--rounds N]
  wayfinder bench-http --graph <dir> [--mode driving|walking|cycling] [--pairs N] [--seed S] [--rounds R]

Run 'wayfinder <command> --help' for a command's options.
Exit codes: 0 ok, 1 usage error, 2 bad input (unreadable file, bad coordinate, no road nearby), 3 no route.
"""

func writeError(_ message: String) {
    FileHandle.standardError.write(Data("wayfinder: \(message)\n".utf8))
}

let commandLine = Array(CommandLine.arguments.dropFirst())
let status: ExitCode
do {
    guard let command = commandLine.first else {
        print(usage)
        exit(ExitCode.usage.rawValue)
    }
    let rest = Array(commandLine.dropFirst())
    // A binary copied without its resources would trap on its first instruction or search; say so instead.
    if !["--help", "-h", "help", "--version", "version"].contains(command), !BundledResources.missing.isEmpty {
        throw CommandError.badInput("this wayfinder cannot find \(BundledResources.missing.joined(separator: ", ")): copy the "
            + "Wayfinder_*.resources directories that 'swift build' writes beside the binary along with it")
    }
    switch command {
    case "--help", "-h", "help": print(usage); status = .ok
    case "--version", "version": print("wayfinder \(version)"); status = .ok
    case "import": status = try ImportCommand.run(rest)
    case "customize": status = try CustomizeCommand.run(rest)
    case "route": status = try RouteCommand.run(rest)
    case "info": status = try InfoCommand.run(rest)
    case "bench": status = try BenchCommand.run(rest)
    case "guidebench": status = try GuideBenchCommand.run(rest)
    case "bench-http": status = try BenchHTTPCommand.run(rest)
    case "bench-library": status = try LibraryBenchCommand.run(rest)
    case "serve": status = try ServeCommand.run(rest)
    case "matrix": status = try MatrixCommand.run(rest)
    case "reach": status = try ReachCommand.run(rest)
    case "trip": status = try TripCommand.run(rest)
    case "match": status = try MatchCommand.run(rest)
    case "navigate": status = try NavigateCommand.run(rest)
    case "servicebench": status = try ServiceBenchCommand.run(rest)
    case "geocode": status = try GeocodeCommand.geocode(rest)
    case "reverse": status = try GeocodeCommand.reverse(rest)
    case "search": status = try GeocodeCommand.search(rest)
    case "geobench": status = try GeoBenchCommand.run(rest)
    default: throw CommandError.usage("unknown command '\(command)'; see 'wayfinder --help'")
    }
} catch let error as EngineError {
    writeError(error.message)
    status = CommandError(error).code
} catch let error as CommandError {
    writeError(error.message)
    if error.code == .usage { FileHandle.standardError.write(Data("Run 'wayfinder --help' for usage.\n".utf8)) }
    status = error.code
} catch {
    writeError("\(error)")
    status = .badInput
}
exit(status.rawValue)
