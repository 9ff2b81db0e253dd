// swift-tools-version: 6.0
import PackageDescription

// One module per stage of the data's path:
// OSMReaderShim (libosmium, C++) → GraphImport → RoadGraph → Routing → Guidance / Isochrones / Trips / MapMatching → RouteFormats →
// Navigation (a route followed fix by fix) → Engine (the facade every front end calls) → HTTPAPI (the endpoints) →
// HTTPService (their server) → wayfinder (CLI). WayfinderEngine, WayfinderImport and WayfinderC are the library.
let package = Package(
    name: "Wayfinder",
    products: [
        .executable(name: "wayfinder", targets: ["wayfinder"]),
        .executable(name: "wayfinder-fuzz", targets: ["FuzzTargets"]),
        .library(name: "WayfinderEngine", targets: ["WayfinderEngine"]),
        .library(name: "WayfinderImport", targets: ["WayfinderImport"]),
        .library(name: "WayfinderC", type: .dynamic, targets: ["WayfinderC"]),
    ],
    targets: [
        .target(
            name: "OSMReaderShim",
            cxxSettings: [.unsafeFlags(["-O2"])],
            linkerSettings: [.linkedLibrary("z"), .linkedLibrary("bz2"), .linkedLibrary("expat"),
                             .linkedLibrary("pthread")]
        ),
        .target(
            name: "WayfinderProto",
            exclude: ["generated/wayfinder.pb.h"],
            sources: ["wayfinder_proto.cpp", "generated/wayfinder.pb.cc"],
            cxxSettings: [.headerSearchPath("."), .unsafeFlags(["-O2"])],
            linkerSettings: [.linkedLibrary("protobuf"), .linkedLibrary("pthread")]
        ),
        .target(name: "CRC32C", cSettings: [.unsafeFlags(["-O2"])]),
        // C: GPX tracks read with expat (FoundationXML traps on some malformed files).
        .target(name: "GPXReader", cSettings: [.unsafeFlags(["-O2"])], linkerSettings: [.linkedLibrary("expat")]),
        // C++: Delaunay triangulation by CGAL (Debian's libcgal-dev, header-only), for isochrone contours.
        // Exact predicates fall back on CGAL's own header-only number types, not GMP: nothing to link.
        .target(name: "CDelaunay", cxxSettings: [.define("CGAL_DISABLE_GMP"), .unsafeFlags(["-O2"])]),
        .target(name: "RoadGraph", dependencies: ["CRC32C"]),
        .target(name: "Contraction", dependencies: ["RoadGraph"]),
        // METIS (libmetis-dev) orders the customizable hierarchy by nested dissection.
        .systemLibrary(name: "CMetis", providers: [.apt(["libmetis-dev"])]),
        .target(name: "Customization", dependencies: ["CMetis", "Contraction", "RoadGraph"]),
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "Geocoding", dependencies: ["CSQLite", "RoadGraph"],
                resources: [.copy("Data")]),
        .target(name: "GraphImport", dependencies: ["OSMReaderShim", "RoadGraph", "Contraction", "Customization", "Geocoding"]),
        .target(name: "Routing", dependencies: ["RoadGraph"]),
        .target(name: "Guidance", dependencies: ["Routing", "RoadGraph"], resources: [.copy("Phrases")]),
        .target(name: "Isochrones", dependencies: ["CDelaunay", "Routing", "RoadGraph"]),
        .target(name: "Trips"),
        .target(name: "MapMatching", dependencies: ["Routing", "RoadGraph"]),
        .target(name: "RouteFormats", dependencies: ["Guidance", "Isochrones", "Routing", "RoadGraph", "WayfinderProto", "Geocoding"]),
        // GPS traces read from GPX files (expat) for the CLI's match and navigate: not the engine's, which takes points.
        .target(name: "TraceReading", dependencies: ["GPXReader", "RoadGraph"]),
        .target(name: "Navigation", dependencies: ["Guidance", "RouteFormats", "RoadGraph", "Routing"]),
        .target(name: "Engine", dependencies: ["Geocoding", "Guidance", "Isochrones", "MapMatching", "Navigation", "RoadGraph", "Routing",
                                               "Trips"]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
                       providers: [.apt(["libmicrohttpd-dev"])]),
        // Every endpoint as a function from request to response, with no socket: the server and the library share it.
        .target(name: "HTTPAPI", dependencies: ["Engine", "RouteFormats", "Guidance", "Routing", "RoadGraph", "Geocoding",
                                                "Navigation"],
                resources: [.copy("Web")]),
        .target(name: "HTTPService", dependencies: ["CMicroHTTPD", "HTTPAPI", "Engine", "RouteFormats", "RoadGraph"]),
        // The library: a documented facade over the engine (WayfinderEngine), the importer (WayfinderImport), and a C
        // ABI over the facade for other languages (python/ loads it). None of them links the HTTP server.
        .target(name: "WayfinderEngine", dependencies: ["Engine", "HTTPAPI", "Guidance", "Isochrones", "RoadGraph",
                                                        "RouteFormats", "Routing"]),
        .target(name: "WayfinderImport", dependencies: ["GraphImport", "WayfinderEngine", "RoadGraph"]),
        .target(name: "WayfinderC", dependencies: ["WayfinderEngine", "HTTPAPI"], exclude: ["wayfinder.h"]),
        .executableTarget(name: "wayfinder",
                          dependencies: ["GraphImport", "RoadGraph", "Routing", "Guidance", "RouteFormats",
                                         "Engine", "HTTPService", "Geocoding", "MapMatching", "Trips", "Navigation",
                                         "WayfinderEngine", "WayfinderC", "TraceReading", "Customization", "HTTPAPI"]),
        // libFuzzer targets for every parser of outside input (scripts/fuzz.sh builds them with coverage).
        .executableTarget(name: "FuzzTargets",
                          dependencies: ["Customization", "Engine", "Geocoding", "GraphImport", "HTTPService", "Navigation", "RoadGraph",
                                         "RouteFormats", "Routing", "TraceReading"]),
        .testTarget(name: "WayfinderTests",
                    dependencies: ["GraphImport", "RoadGraph", "Routing", "Guidance", "RouteFormats", "Engine",
                                   "HTTPService", "Geocoding", "Isochrones", "MapMatching", "Trips", "Navigation", "wayfinder",
                                   "WayfinderEngine", "WayfinderImport", "WayfinderC", "TraceReading", "Customization"]),
    ],
    swiftLanguageModes: [.v5],
    cxxLanguageStandard: .cxx17
)
