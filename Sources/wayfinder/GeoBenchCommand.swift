import Foundation
import Geocoding
import RoadGraph

/// `wayfinder geobench`: the geocoding targets measured on an imported extract.
enum GeoBenchCommand {
    static let help = """
    Usage: wayfinder geobench --graph <dir> [--limit N] [--show-misses N]

    For every object with a street and house number (up to N): the query "street housenumber" must find it first,
    within 30 m (reported with the bound that duplicate street-and-number pairs set on any ranking); reverse
    geocoding at its position must name its street. For every named place: each of its name:xx names must find it
    (a result within 1 km: first, or among the first five). Prints the rates and median/p95 latencies.
    """

    static func run(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--help"], options: ["--graph", "--limit", "--show-misses"])
        if args.has("--help") { print(help); return .ok }
        let limit = try args.integer("--limit", default: 100_000, range: 1...10_000_000)
        let showMisses = try args.integer("--show-misses", default: 0, range: 0...10_000)
        var addressMisses: [String] = []
        let geocoder = try engineCall { try openEngine(args, modes: []).placeIndex() }
        let addresses = Array(try geocoder.allAddresses().prefix(limit))
        var forwardTimes: [Double] = [], reverseTimes: [Double] = []
        var found = 0, streetOK = 0, ambiguous = 0, foundAmongUnique = 0, foundWithLocality = 0
        // The same street and number in two places (villages with the same street names) cannot be told apart by
        // "street housenumber" alone: counted, and reported separately.
        var groups: [String: [Coordinate]] = [:]
        for a in addresses { groups[TextNormalizer.fold("\(a.street) \(a.housenumber)"), default: []].append(a.position) }
        let seen = groups.mapValues(\.count)
        // The most any ranking can get right: per query text, only the copies within 30 m of the one put first.
        let attainable = groups.values.reduce(0) { total, copies in
            total + copies.map { p in copies.filter { Geo.distance(p, $0) <= 30 }.count }.max()!
        }
        for a in addresses {
            let unique = seen[TextNormalizer.fold("\(a.street) \(a.housenumber)")] == 1
            if !unique { ambiguous += 1 }
            var start = DispatchTime.now()
            let first = try geocoder.forward("\(a.street) \(a.housenumber)", limit: 1).first
            forwardTimes.append(BenchCommand.milliseconds(since: start))
            if let first, Geo.distance(first.coordinate, a.position) <= 30 {
                found += 1
                if unique { foundAmongUnique += 1 }
            } else if addressMisses.count < showMisses {
                addressMisses.append("\(a.street) \(a.housenumber) (\(unique ? "unique" : "shared")) at \(a.position): first "
                    + (first.map { "\($0.name) [\($0.kind)] \($0.subtitle) at \($0.coordinate)" } ?? "nothing"))
            }
            if !unique {
                // How a user tells them apart: with the village.
                let withLocality = try geocoder.forward("\(a.street) \(a.housenumber), \(a.locality)", limit: 1).first
                if let withLocality, Geo.distance(withLocality.coordinate, a.position) <= 30 { foundWithLocality += 1 }
            }
            start = DispatchTime.now()
            let reverse = try geocoder.reverse(a.position)
            reverseTimes.append(BenchCommand.milliseconds(since: start))
            if let reverse, TextNormalizer.fold(reverse.thoroughfare) == TextNormalizer.fold(a.street) { streetOK += 1 }
        }
        let places = try geocoder.placesWithNames()
        var variants = 0, variantsFirst = 0, variantsTop5 = 0
        var misses: [String] = []
        for place in places {
            for name in place.variants {
                variants += 1
                let candidates = try geocoder.forward(name, limit: 5)
                let hits = candidates.map { Geo.distance($0.coordinate, place.position) <= 1000 }
                if hits.first == true { variantsFirst += 1 }
                if hits.contains(true) { variantsTop5 += 1 } else if misses.count < 5 { misses.append(name) }
            }
        }
        func rate(_ a: Int, _ b: Int) -> String { b == 0 ? "n/a" : String(format: "%.2f%% (%d/%d)", 100 * Double(a) / Double(b), a, b) }
        print("place index \(args["--graph"]!)")
        for miss in addressMisses { print("missed: \(miss)") }
        print("addresses: \"street housenumber\" finds the address first within 30 m: \(rate(found, addresses.count)); "
            + "\(ambiguous) share their street and number with another address; among the others: \(rate(foundAmongUnique, addresses.count - ambiguous)); "
            + "the most any ranking can attain with these duplicates: \(rate(attainable, addresses.count)); "
            + "the shared ones queried as \"street housenumber, locality\": \(rate(foundWithLocality, ambiguous))")
        print("addresses: reverse geocoding names the street: \(rate(streetOK, addresses.count))")
        print("places: found by each of their names (name, name:xx, …): first \(rate(variantsFirst, variants)), "
            + "among the first five \(rate(variantsTop5, variants))" + (misses.isEmpty ? "" : "; e.g. missed \(misses.joined(separator: ", "))"))
        print("forward query median \(BenchCommand.format(BenchCommand.median(forwardTimes))) ms, p95 \(BenchCommand.format(BenchCommand.percentile(forwardTimes, 0.95))) ms; "
            + "reverse median \(BenchCommand.format(BenchCommand.median(reverseTimes))) ms, p95 \(BenchCommand.format(BenchCommand.percentile(reverseTimes, 0.95))) ms")
        return .ok
    }
}
