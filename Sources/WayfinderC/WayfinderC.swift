import Foundation
import HTTPAPI
import WayfinderEngine

// The engine behind a C ABI (wayfinder.h), for the Python package and any other language with a foreign-function
// interface. Calls never trap on bad input: every failure is a status and an OSRM error body.
//
// Text crosses as NUL-terminated UTF-8, answers as malloc'ed bytes the caller frees with `wf_free`, and tables as
// the caller's own arrays, so a 10,000 × 10,000 table is written once, straight into NumPy's memory.

/// An open engine, kept alive by the handle the caller holds.
private final class Handle {
    let wayfinder: Wayfinder
    init(_ wayfinder: Wayfinder) { self.wayfinder = wayfinder }
}

private func handle(_ pointer: UnsafeMutableRawPointer?) -> Wayfinder? {
    pointer.map { Unmanaged<Handle>.fromOpaque($0).takeUnretainedValue().wayfinder }
}

/// Bytes copied into memory the caller frees with `wf_free` (one spare NUL, so text can be read as a C string).
private func give(_ bytes: [UInt8], _ out: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                  _ length: UnsafeMutablePointer<Int>?) {
    guard let out else { return }
    let buffer = malloc(bytes.count + 1)!.assumingMemoryBound(to: UInt8.self)
    bytes.withUnsafeBufferPointer { if let base = $0.baseAddress { buffer.update(from: base, count: bytes.count) } }
    buffer[bytes.count] = 0
    out.pointee = buffer
    length?.pointee = bytes.count
}

/// OSRM's error body; `withStatus` adds the HTTP status, for calls that return none (`wf_open`).
private func errorBody(_ error: WayfinderError, withStatus: Bool = false) -> [UInt8] {
    var object: [String: Any] = ["code": error.code, "message": error.message]
    if withStatus { object["status"] = error.status }
    return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).map { Array($0) } ?? []
}

private func text(_ pointer: UnsafePointer<CChar>?, _ what: String) throws(WayfinderError) -> String {
    guard let pointer else { throw WayfinderError(code: "InvalidValue", message: "\(what) is missing") }
    return String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
}

/// Runs `body`, writing its answer or its error to `out`; returns 0 or the error's HTTP status.
private func answering(_ out: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, _ length: UnsafeMutablePointer<Int>?,
                       withStatus: Bool = false, _ body: () throws(WayfinderError) -> [UInt8]) -> Int32 {
    do {
        give(try body(), out, length)
        return 0
    } catch {
        give(errorBody(error, withStatus: withStatus), out, length)
        return Int32(error.status)
    }
}

/// Opens a graph directory. `modes`: NULL for every mode the import built, else `driving,walking,…`.
/// Returns NULL on failure, with the error body in `error` (free it with `wf_free`).
@_cdecl("wf_open")
public func wf_open(_ directory: UnsafePointer<CChar>?, _ modes: UnsafePointer<CChar>?,
                    _ error: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> UnsafeMutableRawPointer? {
    var opened: UnsafeMutableRawPointer?
    let status = answering(error, nil, withStatus: true) { () throws(WayfinderError) -> [UInt8] in
        let path = try text(directory, "the graph directory")
        var chosen: [Mode]?
        if let modes {
            chosen = try text(modes, "modes").split(separator: ",").map { name throws(WayfinderError) -> Mode in
                guard let mode = Mode(profileName: String(name)) else {
                    throw WayfinderError(code: "InvalidValue", message: "unknown mode '\(name)' (driving, walking, cycling)")
                }
                return mode
            }
        }
        opened = Unmanaged.passRetained(Handle(try Wayfinder(directory: path, modes: chosen))).toOpaque()
        return []
    }
    if status == 0, let error { free(error.pointee); error.pointee = nil }
    return opened
}

/// Closes an engine: its graphs are unmapped once no call is using them.
@_cdecl("wf_close")
public func wf_close(_ engine: UnsafeMutableRawPointer?) {
    guard let engine else { return }
    Unmanaged<Handle>.fromOpaque(engine).release()
}

/// Frees what a call returned.
@_cdecl("wf_free")
public func wf_free(_ pointer: UnsafeMutableRawPointer?) { free(pointer) }

/// Any request of the HTTP API, in-process: `target` as `/route/v1/driving/24.94,60.17;24.95,60.18?steps=true`,
/// `body` a POST's JSON (NULL for GET). Returns the HTTP status; the body (OSRM JSON, or its error) in `out`.
@_cdecl("wf_request")
public func wf_request(_ engine: UnsafeMutableRawPointer?, _ target: UnsafePointer<CChar>?, _ body: UnsafePointer<UInt8>?,
                       _ bodyLength: Int, _ out: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                       _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    var status: Int32 = 200
    let failed = answering(out, outLength) { () throws(WayfinderError) -> [UInt8] in
        guard let wayfinder = handle(engine) else { throw WayfinderError(code: "InvalidValue", message: "the engine is closed") }
        let path = try text(target, "the request target")
        guard bodyLength >= 0 else { throw WayfinderError(code: "InvalidValue", message: "negative body length") }
        let bytes = body.map { Array(UnsafeBufferPointer(start: $0, count: bodyLength)) }
        let answer = wayfinder.respond(to: path, body: bytes)
        status = Int32(answer.status)
        return answer.body
    }
    return failed == 0 ? status : failed
}

/// A route as the CLI's `route --format json` answers it. `request` is JSON:
/// `{"points": [[lat, lon] | "name", …], "mode": "driving", "steps": true, "language": "en", "units": "metric",
///   "compat": "wayfinder", "alternatives": 0, "avoid": ["toll"], "radius": 5000, "depart_at": "2026-12-07T08:00",
///   "weights": {"unpaved": 10, "minor_roads": 1.5}}` (only `points` required; `arrive_by` instead of `depart_at`
///   arrives by the time; `avoid` forbids roads, `weights` makes them weigh more: `RouteOptions.weights`).
/// Returns 0 with OSRM's route JSON in `out`, or the error's HTTP status with OSRM's error body.
@_cdecl("wf_route")
public func wf_route(_ engine: UnsafeMutableRawPointer?, _ request: UnsafePointer<CChar>?,
                     _ out: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    answering(out, outLength) { () throws(WayfinderError) -> [UInt8] in
        guard let wayfinder = handle(engine) else { throw WayfinderError(code: "InvalidValue", message: "the engine is closed") }
        let parsed = try RouteRequest(json: try text(request, "the request"))
        return try wayfinder.routeJSON(parsed.waypoints, options: parsed.options)
    }
}

/// A table into the caller's arrays of `sourceCount × destinationCount` cells each (row-major; NaN where a
/// destination cannot be reached): seconds and metres to a tenth, or with `exact` unrounded (milliseconds), as the
/// CLI's protobuf. `sources` and `destinations` are `lat, lon` pairs; `destinations` NULL means the sources.
/// `radius` ≤ 0 takes the default (5 km); `threads` ≤ 0 every core. `out` gets the snapped points,
/// `{"unsnapped": [i, …], "sources": [[lat, lon, distance, name] | null, …], "destinations": […]}`.
/// Returns 0, or the error's HTTP status with OSRM's error body in `out`. Cells are doubles; `wf_table_float`
/// writes floats, half the memory.
@_cdecl("wf_table")
public func wf_table(_ engine: UnsafeMutableRawPointer?, _ mode: UnsafePointer<CChar>?,
                     _ sources: UnsafePointer<Double>?, _ sourceCount: Int,
                     _ destinations: UnsafePointer<Double>?, _ destinationCount: Int,
                     _ radius: Double, _ threads: Int32, _ exact: Int32,
                     _ durations: UnsafeMutablePointer<Double>?, _ distances: UnsafeMutablePointer<Double>?,
                     _ out: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    table(engine, mode, sources, sourceCount, destinations, destinationCount, radius, threads, exact, durations, distances,
          out, outLength)
}

/// `wf_table` into arrays of floats.
@_cdecl("wf_table_float")
public func wf_table_float(_ engine: UnsafeMutableRawPointer?, _ mode: UnsafePointer<CChar>?,
                           _ sources: UnsafePointer<Double>?, _ sourceCount: Int,
                           _ destinations: UnsafePointer<Double>?, _ destinationCount: Int,
                           _ radius: Double, _ threads: Int32, _ exact: Int32,
                           _ durations: UnsafeMutablePointer<Float>?, _ distances: UnsafeMutablePointer<Float>?,
                           _ out: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                           _ outLength: UnsafeMutablePointer<Int>?) -> Int32 {
    table(engine, mode, sources, sourceCount, destinations, destinationCount, radius, threads, exact, durations, distances,
          out, outLength)
}

private func table<Cell: BinaryFloatingPoint>(
    _ engine: UnsafeMutableRawPointer?, _ mode: UnsafePointer<CChar>?, _ sources: UnsafePointer<Double>?, _ sourceCount: Int,
    _ destinations: UnsafePointer<Double>?, _ destinationCount: Int, _ radius: Double, _ threads: Int32, _ exact: Int32,
    _ durations: UnsafeMutablePointer<Cell>?, _ distances: UnsafeMutablePointer<Cell>?,
    _ out: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, _ outLength: UnsafeMutablePointer<Int>?
) -> Int32 {
    answering(out, outLength) { () throws(WayfinderError) -> [UInt8] in
        guard let wayfinder = handle(engine) else { throw WayfinderError(code: "InvalidValue", message: "the engine is closed") }
        let modeName = try text(mode, "the mode")
        guard let chosen = Mode(profileName: modeName) else {
            throw WayfinderError(code: "InvalidValue", message: "unknown mode '\(modeName)' (driving, walking, cycling)")
        }
        guard sourceCount >= 0, destinationCount >= 0, let sources, let durations, let distances else {
            throw WayfinderError(code: "InvalidValue", message: "the table's points and arrays are missing")
        }
        func locations(_ pairs: UnsafePointer<Double>, _ count: Int) -> [Location] {
            (0..<count).map { Location(latitude: pairs[2 * $0], longitude: pairs[2 * $0 + 1]) }
        }
        let (cells, overflow) = sourceCount.multipliedReportingOverflow(by: destinations == nil ? sourceCount : destinationCount)
        guard !overflow, cells <= Int.max / 8 else {
            throw WayfinderError(code: "TooBig", message: "a table of \(sourceCount) × \(destinationCount) cells is too large")
        }
        let from = locations(sources, sourceCount)
        let to = destinations.map { locations($0, destinationCount) }
        let snapped = try wayfinder.fillTable(
            sources: from, destinations: to, mode: chosen, snapRadius: radius > 0 ? radius : nil,
            threads: threads > 0 ? Int(threads) : ProcessInfo.processInfo.activeProcessorCount, exact: exact != 0,
            durations: UnsafeMutableBufferPointer(start: durations, count: cells),
            distances: UnsafeMutableBufferPointer(start: distances, count: cells))
        func list(_ points: [SnappedWaypoint?]) -> [Any] {
            points.map { point -> Any in
                guard let point else { return NSNull() }
                return [point.location.latitude, point.location.longitude, point.distance, point.name] as [Any]
            }
        }
        let object: [String: Any] = ["unsnapped": snapped.unsnapped, "sources": list(snapped.sources),
                                     "destinations": list(snapped.destinations)]
        guard let data = try? JSONSerialization.data(withJSONObject: object) else {
            throw WayfinderError(code: "InvalidValue", message: "the snapped points cannot be written as JSON")
        }
        return Array(data)
    }
}

/// A route request in JSON, checked member by member with OSRM's codes.
private struct RouteRequest {
    var waypoints: [Waypoint] = []
    var options = RouteOptions()

    init(json: String) throws(WayfinderError) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] else {
            throw WayfinderError(code: "InvalidQuery", message: "the request is not a JSON object")
        }
        let known: Set<String> = ["points", "mode", "steps", "language", "units", "compat", "alternatives", "avoid", "radius",
                                  "depart_at", "arrive_by", "weights"]
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw WayfinderError(code: "InvalidOptions", message: "unknown option '\(unknown)'")
        }
        guard let points = object["points"] as? [Any] else {
            throw WayfinderError(code: "InvalidQuery", message: "points must be a list of [lat, lon] pairs or names")
        }
        for (i, point) in points.enumerated() {
            if let name = point as? String {
                waypoints.append(.name(name))
            } else if let pair = point as? [Any], pair.count == 2, let lat = JSONMember.number(pair[0]), let lon = JSONMember.number(pair[1]) {
                waypoints.append(.coordinate(lat, lon))
            } else {
                throw WayfinderError(code: "InvalidQuery", message: "point \(i) is neither [lat, lon] nor a name")
            }
        }
        if let mode = object["mode"] {
            guard let name = mode as? String, let chosen = Mode(profileName: name) else {
                throw WayfinderError(code: "InvalidValue", message: "unknown mode '\(mode)' (driving, walking, cycling)")
            }
            options.mode = chosen
        }
        if let steps = object["steps"] {
            guard let flag = JSONMember.bool(steps) else { throw WayfinderError(code: "InvalidValue", message: "steps must be true or false") }
            options.steps = flag
        }
        if let language = object["language"] {
            guard let code = language as? String, !code.isEmpty, code.count <= 16 else {
                throw WayfinderError(code: "InvalidValue", message: "language must be a language code such as en or zh")
            }
            options.language = code
        }
        if let units = object["units"] {
            guard let name = units as? String, let chosen = DistanceUnits(rawValue: name) else {
                throw WayfinderError(code: "InvalidValue", message: "units must be metric or imperial")
            }
            options.units = chosen
        }
        if let compat = object["compat"] {
            guard let name = compat as? String, let chosen = Compatibility(rawValue: name) else {
                throw WayfinderError(code: "InvalidValue", message: "compat must be osrm or wayfinder")
            }
            options.compatibility = chosen
        }
        if let alternatives = object["alternatives"] {
            guard let count = JSONMember.integer(alternatives), (0...3).contains(count) else {
                throw WayfinderError(code: "InvalidValue", message: "alternatives must be 0 to 3")
            }
            options.alternatives = Int(count)
        }
        if let avoid = object["avoid"] {
            guard let names = avoid as? [String], let classes = Optional(names.compactMap(RoadClass.init(rawValue:))),
                  classes.count == names.count else {
                throw WayfinderError(code: "InvalidValue", message: "avoid takes toll, motorway and ferry")
            }
            options.avoiding = Set(classes)
        }
        if let weights = object["weights"] {
            guard let table = weights as? [String: Any] else {
                throw WayfinderError(code: "InvalidValue", message: "weights must be an object of kinds of road and numbers")
            }
            for (name, value) in table {
                guard let kind = RoadKind(rawValue: name), let factor = JSONMember.number(value) else {
                    throw WayfinderError(code: "InvalidValue", message: "weights takes "
                        + RoadKind.allCases.map(\.rawValue).joined(separator: ", ") + ", each with a number")
                }
                options.weights[kind] = factor
            }
        }
        if let radius = object["radius"] {
            guard let metres = JSONMember.number(radius), metres > 0 else {
                throw WayfinderError(code: "InvalidValue", message: "radius must be a positive number of metres")
            }
            options.snapRadius = metres
        }
        switch (object["depart_at"], object["arrive_by"]) {
        case (nil, nil): break
        case (let text as String, nil): options.time = .departing(text)
        case (nil, let text as String): options.time = .arriving(text)
        case (_?, _?): throw WayfinderError(code: "InvalidOptions", message: "give depart_at or arrive_by, not both")
        default: throw WayfinderError(code: "InvalidValue", message: "depart_at and arrive_by are times as text, YYYY-MM-DDTHH:MM")
        }
    }

}
