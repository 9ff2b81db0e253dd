// swift-tools-version: 6.0
import PackageDescription

// A program that uses Wayfinder as a library: it depends on the engine product only, so it links neither the
// importer's libraries (libosmium, zlib, bzip2) nor the server's (libmicrohttpd).
let package = Package(
    name: "RouteBetweenNames",
    dependencies: [.package(name: "Wayfinder", path: "../..")],
    targets: [
        .executableTarget(name: "RouteBetweenNames",
                          dependencies: [.product(name: "WayfinderEngine", package: "Wayfinder")]),
    ]
)
