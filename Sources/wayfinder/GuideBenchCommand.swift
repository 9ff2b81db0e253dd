import Engine
import Foundation
import Guidance
import RoadGraph
import Routing

/// `wayfinder guidebench`: what guidance says on random routes — steps per route, the share of each maneuver,
/// and the checks a maps app's user would make (no tiny steps, no street named twice in a row, steps that join up
/// and add up to the route, no placeholder left in the text).
enum GuideBenchCommand {
    static let help = """
    Usage: wayfinder guidebench --graph <dir> [--mode driving|walking|cycling] [--pairs N] [--seed S]
                                [--print K] [--language en|zh]

    Draws N pairs of points uniformly in the graph's bounds (a point with no road within 5 km is dropped, as is a
    pair with no route), routes each with steps, and prints: routes measured, steps per route (median, mean),
    each maneuver type's share of all steps, steps shorter than 10 m other than depart and arrive, pairs of
    consecutive steps that name the same street (a new name or turn onto it, and separately the "continue" and
    U-turn steps worded as staying on it), and the contiguity, sum and placeholder checks. --print K prints the
    first K routes' instructions in --language.
    """

    static func run(_ raw: [String]) throws -> ExitCode {
        let args = try Arguments(raw, flags: ["--help"], options: ["--graph", "--mode", "--pairs", "--seed", "--print", "--language"])
        if args.has("--help") { print(help); return .ok }
        let mode = try args.mode()
        let pairs = try args.integer("--pairs", default: 200, range: 1...100_000)
        let seed = try args.integer("--seed", default: 1, range: 0...Int.max)
        let printCount = try args.integer("--print", default: 0, range: 0...100_000)
        let language = args["--language"] ?? "en"
        // Every mode imported: a drive to a destination the car cannot reach walks the rest, as users get it.
        let engine = try openEngine(args)
        let graph = try modeGraph(engine, mode, args)
        let bounds = graph.metadata.bounds
        guard !bounds.isEmpty else { throw CommandError.badInput("the \(mode.rawValue) graph is empty") }
        var random = SplitMix64(seed: UInt64(seed))
        func unit() -> Double { Double(random.next() % 1_000_000) / 1_000_000 }
        func point() -> Coordinate {
            Coordinate(latitude: bounds.minLatitude + unit() * (bounds.maxLatitude - bounds.minLatitude),
                       longitude: bounds.minLongitude + unit() * (bounds.maxLongitude - bounds.minLongitude))
        }
        var stepCounts: [Int] = [], typeCounts: [String: Int] = [:], totalSteps = 0
        var short: [(Int, String, Double)] = [], sameName: [(Int, String)] = [], stayOn = 0
        var gaps = 0, sumErrors = 0, placeholders: [String] = [], unroutable = 0, printed = 0
        var lengths: [Double] = []
        for index in 0..<pairs {
            var query = RouteQuery(mode: mode, points: [point(), point()])
            query.snapRadius = 5000
            query.directions = DirectionsOptions(language: language)
            guard let answer = try? engine.route(query) else { unroutable += 1; continue }
            let steps = Array(answer.best.directions.legs.joined())
            stepCounts.append(steps.count)
            lengths.append(answer.best.route.distance)
            totalSteps += steps.count
            for step in steps {
                let key = step.maneuver.type.rawValue
                typeCounts[key, default: 0] += 1
                if step.maneuver.type != .depart && step.maneuver.type != .arrive && step.distance < 10 {
                    short.append((index, step.instruction, step.distance))
                }
                if step.instruction.contains("{") || step.instruction.contains("}") { placeholders.append(step.instruction) }
            }
            for (a, b) in zip(steps, steps.dropFirst()) where b.maneuver.type != .arrive && !a.name.isEmpty && a.name == b.name {
                if b.staysOn && b.maneuver.type != .newName {
                    stayOn += 1
                } else {
                    sameName.append((index, "\(a.instruction) → \(b.instruction)"))
                }
            }
            for (leg, legSteps) in zip(answer.best.route.legs, answer.best.directions.legs) {
                for (a, b) in zip(legSteps, legSteps.dropFirst()) where Geo.distance(a.coordinates.last!, b.coordinates.first!) > 0.01 {
                    gaps += 1
                }
                if abs(legSteps.reduce(0) { $0 + $1.distance } - leg.distance) > 1 { sumErrors += 1 }
            }
            if printed < printCount {
                printed += 1
                print("— route \(index): \(String(format: "%.5f,%.5f", query.points[0].latitude, query.points[0].longitude)) → "
                    + String(format: "%.5f,%.5f", query.points[1].latitude, query.points[1].longitude))
                for step in steps {
                    print("   \(step.instruction) — \(answer.best.directions.phrases.distance(step.distance, units: .metric))")
                }
            }
        }
        let routes = stepCounts.count
        guard routes > 0 else { throw CommandError.badInput("no pair could be routed") }
        let sorted = stepCounts.sorted()
        print("graph \(args["--graph"]!) (\(mode.rawValue)), \(pairs) pairs, seed \(seed): \(routes) routed, \(unroutable) dropped")
        print(String(format: "route length median %.1f km; steps per route median %d, mean %.1f (depart and arrive included)",
                     lengths.sorted()[lengths.count / 2] / 1000, sorted[routes / 2], Double(totalSteps) / Double(routes)))
        print("maneuver shares of \(totalSteps) steps:")
        for (type, count) in typeCounts.sorted(by: { $0.value > $1.value }) {
            print(String(format: "  %-16@ %6d  %5.1f %%", type as NSString, count, 100 * Double(count) / Double(totalSteps)))
        }
        print("steps under 10 m (not depart/arrive): \(short.count) in \(Set(short.map(\.0)).count) routes")
        for (route, text, distance) in short.prefix(10) { print(String(format: "  route %d: %.1f m  %@", route, distance, text)) }
        print("consecutive steps that announce the street already followed: \(sameName.count); steps said as staying on it: \(stayOn)")
        for (route, text) in sameName.prefix(10) { print("  route \(route): \(text)") }
        print("steps not contiguous: \(gaps); legs whose steps do not add up: \(sumErrors); placeholders left: \(placeholders.count)")
        return short.isEmpty && sameName.isEmpty && gaps == 0 && sumErrors == 0 && placeholders.isEmpty ? .ok : .badInput
    }
}

extension ManeuverType {
    var isRoundabout: Bool {
        [.roundabout, .rotary, .roundaboutTurn, .exitRoundabout, .exitRotary].contains(self)
    }
}
