import Engine
import Foundation
import Guidance
import HTTPService
import Navigation
import RoadGraph
import Routing
import Testing

/// A route followed fix by fix (issue 30): progress, off-route detection and rerouting, in process, over HTTP and
/// in the CLI's replay.
@Suite struct RouteProgressTests {
    /// `wayfinder navigate --bench --json` on a graph: its figures.
    static func bench(_ graph: String, _ extra: [String]) throws -> [String: Any] {
        let run = try CommandLineTests.run(["navigate", "--bench", "--graph", graph, "--json"] + extra)
        #expect(run.status == 0, "\(run.stderr)")
        return try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any] ?? [:]
    }

    /// Drives on the route at 10 m of noise never flagged; drives that leave it at a junction flagged within 3 fixes
    /// of being 30 m off, and routed again from the road driven, the way it goes.
    static func checkBench(_ f: [String: Any], routes: Int, maxFalseAlarms: Int, flaggedShare: Double = 0.9) {
        func n(_ key: String) -> Int { f[key] as? Int ?? -1 }
        #expect(n("routes") >= routes, "\(f)")
        #expect(n("false_alarms") <= maxFalseAlarms, "\(f)")
        let leaves = n("leaves")
        #expect(leaves >= routes / 5, "\(f)")
        #expect(Double(n("flagged_within_3")) >= flaggedShare * Double(leaves), "\(f)")
        #expect(n("not_flagged") <= leaves / 50, "\(f)")
        #expect(Double(n("reroute_on_road_driven")) >= 0.9 * Double(leaves), "\(f)")
        #expect(Double(n("reroute_in_direction")) >= 0.9 * Double(leaves), "\(f)")
    }

    @Test func helsinkiDrivesOnAndOffTheRoute() throws {
        let figures = try Self.bench(CommandLineTests.graph.1, ["--pairs", "80"])
        // About 25 departures on slow city streets, where a car takes longer to be 30 m off: 25 of 28 here.
        Self.checkBench(figures, routes: 50, maxFalseAlarms: 0, flaggedShare: 0.85)
    }

    /// 200 routes and more, not one fix flagged while on them.
    @Test(.enabled(if: Available.porto, "needs ../shared/data/r5-porto_portugal.osm.pbf"))
    func portoDrivesOnAndOffTheRoute() throws {
        let figures = try Self.bench(try DeploymentTests.portoGraph.get(), ["--pairs", "240", "--seed", "1"])
        Self.checkBench(figures, routes: 200, maxFalseAlarms: 0)
    }

    @Test func progressOverHTTP() throws {
        let server = try ServerTests.Server()
        defer { _ = server.stop() }
        let path = "/route/v1/driving/24.9440,60.1675;24.9412,60.1756?steps=true&voice_instructions=true&banner_instructions=true&geometries=geojson&overview=full"
        let (status, answer) = try ServerTests.json(server.base + path)
        #expect(status == 200)
        let id = try #require(answer["uuid"] as? String)
        let route = try #require((answer["routes"] as? [[String: Any]])?.first)
        let line = try #require((route["geometry"] as? [String: Any])?["coordinates"] as? [[Double]])
        // Along the line, one point in three: the steps advance, the distance left falls, announcements come.
        var state = "", said: [String] = [], lastRemaining = Double.infinity, stepsSeen = Set<Int>()
        for (i, p) in line.enumerated() where i % 3 == 0 {
            let (code, body) = try ServerTests.json(server.base + "/navigation/v1/progress/\(id)?location=\(p[0]),\(p[1])&time=\(i)&state=\(state)")
            #expect(code == 200, "\(body)")
            let progress = try #require(body["progress"] as? [String: Any])
            state = try #require(body["state"] as? String)
            #expect(progress["off_route"] as? Bool == false, "\(progress)")
            let remaining = try #require(progress["distance_remaining"] as? Double)
            #expect(remaining <= lastRemaining + 0.1)
            lastRemaining = remaining
            stepsSeen.insert(progress["step_index"] as? Int ?? -1)
            if let voice = progress["voice_instruction"] as? [String: Any] { said.append(voice["announcement"] as? String ?? "") }
        }
        #expect(stepsSeen.count >= 4 && said.count >= 4, "\(stepsSeen) \(said)")
        #expect(Set(said).count == said.count, "nothing said twice: \(said)")
        // Fixes 400 m off, going east: one could be a glitch; the second leaves the route, with a new route from
        // there, kept under its own id.
        var offState = state, reroute: [String: Any]?
        for t in 0..<2 {
            let (_, body) = try ServerTests.json(server.base + "/navigation/v1/progress/\(id)?location=24.9500,60.1650&bearing=90&speed=8&time=\(1000 + t)&state=\(offState)")
            offState = body["state"] as? String ?? ""
            let progress = try #require(body["progress"] as? [String: Any])
            #expect((progress["off_route"] as? Bool) == (t == 1), "\(t): \(progress)")
            #expect((body["reroute"] != nil) == (t == 1))
            if t == 1 {
                #expect(progress["off_route_reason"] as? String == "distance")
                reroute = body["reroute"] as? [String: Any]
            }
        }
        let again = try #require(reroute)
        #expect(again["code"] as? String == "Ok" && again["uuid"] as? String != nil && again["uuid"] as? String != id)
        // The same route sent whole gives the same progress as by its id.
        let fix = line[line.count / 2]
        let byId = try ServerTests.json(server.base + "/navigation/v1/progress/\(id)?location=\(fix[0]),\(fix[1])").object
        let body = try JSONSerialization.data(withJSONObject: ["route": route, "geometries": "geojson", "location": fix])
        let posted = try RawHTTP.request(port: server.port, method: "POST", target: "/navigation/v1/progress",
                                         headers: ["Content-Type: application/json"], body: String(decoding: body, as: UTF8.self))
        #expect(posted.status == 200, "\(posted.body.prefix(300))")
        let sent = try JSONSerialization.jsonObject(with: Data(posted.body.utf8)) as? [String: Any]
        let a = byId["progress"] as? [String: Any], b = sent?["progress"] as? [String: Any]
        #expect(a?["step_index"] as? Int == b?["step_index"] as? Int)
        #expect(abs((a?["distance_remaining"] as? Double ?? 0) - (b?["distance_remaining"] as? Double ?? -100)) < 2)
        // Refused: an unknown id, a state this server did not give, a bad location, a route without steps.
        for (query, status, code) in [("/navigation/v1/progress/nope?location=24.94,60.17", 404, "NotFound"),
                                      ("/navigation/v1/progress/\(id)?location=24.94,60.17&state=garbage", 400, "InvalidValue"),
                                      ("/navigation/v1/progress/\(id)?location=24.94", 400, "InvalidUrl"),
                                      ("/navigation/v1/progress/\(id)?location=24.94,60.17&speed=-3", 400, "InvalidValue"),
                                      ("/navigation/v1/progress/\(id)?location=24.94,60.17&colour=red", 400, "InvalidQuery")] {
            let (got, object) = try ServerTests.json(server.base + query)
            #expect(got == status && object["code"] as? String == code, "\(query): \(got) \(object)")
        }
        let noSteps = try JSONSerialization.data(withJSONObject: ["route": ["legs": [["steps": []]]], "location": [24.94, 60.17]])
        let refused = try RawHTTP.request(port: server.port, method: "POST", target: "/navigation/v1/progress",
                                          headers: ["Content-Type: application/json"], body: String(decoding: noSteps, as: UTF8.self))
        #expect(refused.status == 400 && refused.body.contains("steps=true"), "\(refused.body)")
    }

    @Test func replayInTheCommandLine() throws {
        let scratch = try TemporaryDirectory()
        let graph = CommandLineTests.graph.1
        let (from, to, elsewhere) = ("60.1675,24.9440", "60.1756,24.9412", "60.1699,24.9384")
        let simulated = try CommandLineTests.run(["navigate", "--graph", graph, "--simulate", scratch.path + "/drive.gpx", from, to])
        #expect(simulated.status == 0, "\(simulated.stderr)")
        // Driving the route: announcements, banners, the arrival; never off it.
        let onRoute = try CommandLineTests.run(["navigate", "--graph", graph, from, to, scratch.path + "/drive.gpx"])
        #expect(onRoute.status == 0, "\(onRoute.stderr)")
        let lines = onRoute.stdout.split(separator: "\n")
        #expect(lines.filter { $0.contains("  say  ") }.count >= 5 && lines.contains { $0.contains("  show  ") }, "\(onRoute.stdout)")
        #expect(lines.last?.hasSuffix("arrived") == true && !onRoute.stdout.contains("off route"), "\(onRoute.stdout)")
        // Driving elsewhere: off the route, and a new route from there.
        _ = try CommandLineTests.run(["navigate", "--graph", graph, "--simulate", scratch.path + "/away.gpx", from, elsewhere])
        let away = try CommandLineTests.run(["navigate", "--graph", graph, from, to, scratch.path + "/away.gpx"])
        #expect(away.status == 0 && away.stdout.contains("off route") && away.stdout.contains("new route"), "\(away.stdout)")
        // The route as JSON, as `route --format json` writes it, is followed the same way.
        let json = try CommandLineTests.run(["route", "--graph", graph, "--format", "json", from, to])
        try json.stdout.write(toFile: scratch.path + "/route.json", atomically: true, encoding: .utf8)
        let fromFile = try CommandLineTests.run(["navigate", "--graph", graph, "--route", scratch.path + "/route.json", scratch.path + "/drive.gpx"])
        #expect(fromFile.status == 0 && fromFile.stdout.split(separator: "\n").last?.hasSuffix("arrived") == true, "\(fromFile.stdout) \(fromFile.stderr)")
        // Bad input: a clear error and a non-zero exit.
        let missing = try CommandLineTests.run(["navigate", "--graph", graph, "--route", scratch.path + "/none.json", scratch.path + "/drive.gpx"])
        #expect(missing.status == 2 && missing.stderr.contains("cannot read"), "\(missing.stderr)")
        try "{\"routes\": [{\"legs\": []}]}".write(toFile: scratch.path + "/empty.json", atomically: true, encoding: .utf8)
        let empty = try CommandLineTests.run(["navigate", "--graph", graph, "--route", scratch.path + "/empty.json", scratch.path + "/drive.gpx"])
        #expect(empty.status == 2 && empty.stderr.contains("no legs"), "\(empty.stderr)")
    }

    /// Upper (p–q) and Lower (s–t), 100 m long and 20 m apart, joined by West (p–s), and by East (q–t) where asked.
    static func twoStreets(joinedAtBothEnds: Bool) throws -> (TestMap, Engine) {
        let map = TestMap("""
            p         q

            s         t
            """)
        map.way("pq", ["highway": "residential", "name": "Upper"])
        map.way("st", ["highway": "residential", "name": "Lower"])
        map.way("ps", ["highway": "residential", "name": "West"])
        if joinedAtBothEnds { map.way("qt", ["highway": "residential", "name": "East"]) }
        _ = try map.build()
        return (map, try Engine(directory: map.graphDirectory))
    }

    /// A client that drives straight on where its route turns right is flagged at the first fix 30 m past the
    /// turn: its heading stays that of the road before it, which the route has left. A client that turns with
    /// the route, its fixes as far from it, is not.
    @Test func drivingStraightOnWhereTheRouteTurnsIsFlaggedAtOnce() throws {
        let map = TestMap("""
            a    b    c




                 d
            """, gridSize: 20)
        map.way("abc", ["highway": "residential", "name": "Across"])
        map.way("bd", ["highway": "residential", "name": "Down"])
        _ = try map.build()
        let engine = try Engine(directory: map.graphDirectory)
        let tracker = ProgressTracker(route: NavigationRoute(try engine.route(RouteQuery(mode: .driving, points: [map.position("a"), map.position("d")])).best))
        let metresPerDegree = Geo.earthRadius * Double.pi / 180
        func moved(_ c: Coordinate, east: Double, south: Double) -> Coordinate {
            Coordinate(latitude: c.latitude - south / metresPerDegree,
                       longitude: c.longitude + east / (metresPerDegree * cos(c.latitude * Double.pi / 180)))
        }
        // 7 m/s, a fix a second: along Across to b, then on east past it.
        var state = NavigationState(), flaggedAt: Double?
        for i in 0..<26 {
            let past = Double(i) * 7 - 100
            let fix = Fix(location: moved(map.position("b"), east: past, south: 0), bearing: 90, speed: 7, accuracy: 10, time: Double(i))
            let progress = tracker.progress(at: fix, state: state)
            state = progress.state
            if progress.offRoute { flaggedAt = past; break }
        }
        #expect(flaggedAt == 33, "\(String(describing: flaggedAt))")
        // Along Across, then down Down as the route goes, each fix there 22 m east of it: none is flagged.
        state = NavigationState()
        for i in 0..<30 {
            let along = Double(i) * 6
            let location = along < 100 ? moved(map.position("a"), east: along, south: 0) : moved(map.position("b"), east: 22, south: along - 100)
            let progress = tracker.progress(at: Fix(location: location, bearing: along < 100 ? 90 : 180, speed: 6, accuracy: 10, time: Double(i)), state: state)
            state = progress.state
            #expect(!progress.offRoute, "\(along)")
        }
    }

    /// A client that drives on past the end of its route keeps going the way the route's last road went: it is
    /// not askew of the route (the arrival's line is one place twice, a segment with no direction), so only the
    /// distance rules apply to it.
    @Test func drivingOnPastTheEndIsNotAskew() throws {
        let map = TestMap("""
            a    b    c
            """, gridSize: 20)
        map.way("abc", ["highway": "residential", "name": "Across"])
        _ = try map.build()
        let engine = try Engine(directory: map.graphDirectory)
        let route = NavigationRoute(try engine.route(RouteQuery(mode: .driving, points: [map.position("a"), map.position("c")])).best)
        for (p, q) in zip(route.points, route.points.dropFirst()) { #expect(Geo.distance(p, q) >= 0.5, "\(p) \(q)") }
        let tracker = ProgressTracker(route: route)
        // 7 m/s, a fix a second, along Across to 28 m past c: the last three 14–28 m past it, 21 m off on average.
        var state = NavigationState()
        let a = map.position("a"), c = map.position("c"), length = Geo.distance(a, c)
        for i in 0...26 {
            let past = Double(i) * 7 - 154
            let location = Coordinate(latitude: a.latitude, longitude: c.longitude + past / length * (c.longitude - a.longitude))
            let progress = tracker.progress(at: Fix(location: location, bearing: 90, speed: 7, accuracy: 10, time: Double(i)), state: state)
            state = progress.state
            #expect(!progress.offRoute, "\(past) m past the end")
        }
    }

    /// A client off its route is routed again from the road its last fixes follow, though its newest fix lies
    /// nearer a road beside it; from that fix alone, from the nearer road.
    @Test func reroutesFromTheRoadTheFixesFollow() throws {
        let (map, engine) = try Self.twoStreets(joinedAtBothEnds: true)
        let tracker = ProgressTracker(route: NavigationRoute(try engine.route(RouteQuery(mode: .driving, points: [map.position("p"), map.position("q")])).best))
        // Along Lower going east, then a fix 12 m off it towards Upper, 8 m from that.
        var state = NavigationState(), progress: RouteProgress?, fix: Fix?
        for (i, (fraction, north)) in [(0.2, 0.0), (0.3, 0.0), (0.4, 0.0), (0.5, 12.0)].enumerated() {
            var place = map.position(between: "s", "t", at: fraction)
            place.latitude += north / (Geo.earthRadius * Double.pi / 180)
            fix = Fix(location: place, bearing: 90, speed: 10, accuracy: 5, time: Double(i))
            progress = tracker.progress(at: fix!, state: state)
            state = progress!.state
        }
        let lower = map.position("s").latitude, upper = map.position("p").latitude
        let again = try engine.reroute(tracker, from: fix!, progress: progress!, like: RouteQuery(mode: .driving, points: []))
        let start = try #require(again.best.route.coordinates.first)
        #expect(abs(start.latitude - lower) < 1e-6 && again.best.route.coordinates.count >= 2, "\(start)")
        var alone = progress!
        alone.state.recent = [fix!.location]
        let nearest = try engine.reroute(tracker, from: fix!, progress: alone, like: RouteQuery(mode: .driving, points: []))
        #expect(abs((nearest.best.route.coordinates.first?.latitude ?? 0) - upper) < 1e-6)
    }

    /// A reroute goes to the destination as the route was asked to: to the place the route found for it, and so
    /// with the side of the road it lies on, not to a point looked for again at the route's end.
    @Test func aRerouteArrivesAsItsRouteDid() throws {
        let map = TestMap("""
            p    q    r

            s    t    u
            """, gridSize: 20)
        map.way("pqr", ["highway": "residential", "name": "Upper"])
        map.way("stu", ["highway": "residential", "name": "Lower"])
        map.way("ps", ["highway": "residential", "name": "West"])
        map.way("qt", ["highway": "residential", "name": "Middle"])
        map.way("ru", ["highway": "residential", "name": "East"])
        _ = try map.build()
        let engine = try Engine(directory: map.graphDirectory)
        var destination = map.position(between: "q", "r", at: 0.5)
        destination.latitude += 20 / (Geo.earthRadius * Double.pi / 180)
        let first = try engine.route(RouteQuery(mode: .driving, points: [map.position("p"), destination])).best
        let arrival = try #require(first.directions.legs[0].last?.arrivalSide)
        #expect(arrival == .left)
        let tracker = ProgressTracker(route: NavigationRoute(first))
        // Off the route along Lower, going east.
        var state = NavigationState(), progress: RouteProgress?, fix: Fix?
        for (i, fraction) in [0.2, 0.35, 0.5, 0.65].enumerated() {
            fix = Fix(location: map.position(between: "s", "t", at: fraction), bearing: 90, speed: 10, accuracy: 5, time: Double(i))
            progress = tracker.progress(at: fix!, state: state)
            state = progress!.state
        }
        let again = try engine.reroute(tracker, from: fix!, progress: progress!, like: RouteQuery(mode: .driving, points: []))
        #expect(roadNames(again.best.route).first == "Lower", "\(roadNames(again.best.route))")
        #expect(again.best.directions.legs[0].last?.arrivalSide == arrival)
        let end = try #require(again.best.route.waypoints.last), asked = try #require(first.route.waypoints.last)
        #expect(end.edge == asked.edge && abs(end.offset - asked.offset) < 0.01 && Geo.distance(end.input, destination) < 0.01)
    }

    /// A reroute is asked as its route was: a route that excludes tolls gets a new one that does too, and one that
    /// departs at a time gets one that departs as much later as the route takes to where the client left it. The
    /// same for a route sent whole with the URL it was asked with; without it, the reroute takes the toll road.
    @Test func aRerouteKeepsTheOptionsOfItsRoute() throws {
        let map = TestMap("""
            a    b    c    d

                 e         f
            """, gridSize: 20)
        map.way("ab", ["highway": "residential", "name": "West"])
        map.way("bc", ["highway": "residential", "name": "Middle"])
        map.way("cd", ["highway": "primary", "name": "Toll Road", "toll": "yes"])
        map.way("bef", ["highway": "residential", "name": "Lower"])
        map.way("fd", ["highway": "residential", "name": "East"])
        _ = try map.build()
        let service = WayfinderService(engine: try Engine(directory: map.graphDirectory))
        func names(_ route: [String: Any]?) -> [String] {
            ((route?["legs"] as? [[String: Any]])?.first?["steps"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
        }
        let a = map.position("a"), d = map.position("d")
        let url = "/route/v1/driving/\(OSRMCompatibilityTests.text(a));\(OSRMCompatibilityTests.text(d))"
            + "?steps=true&voice_instructions=true&exclude=toll&depart_at=2026-12-07T08:00:50"
        let (status, answer) = try service.json(url)
        #expect(status == 200, "\(answer)")
        let id = try #require(answer["uuid"] as? String)
        let first = names((answer["routes"] as? [[String: Any]])?.first)
        #expect(!first.isEmpty && !first.contains("Toll Road"), "\(first)")
        #expect(answer["depart_at"] as? String == "2026-12-07T08:00", "\(String(describing: answer["depart_at"]))")
        // Along West at 10 m/s, then straight on along Middle where the route turns down Lower.
        func drive(_ progress: (_ place: Coordinate, _ t: Int, _ state: String) throws -> (Int, [String: Any])) throws -> [String: Any]? {
            var state = ""
            for t in 0..<18 {
                let place = t <= 10 ? map.position(between: "a", "b", at: Double(t) / 10) : map.position(between: "b", "c", at: Double(t - 10) / 10)
                let (code, body) = try progress(place, t, state)
                #expect(code == 200, "\(body)")
                state = body["state"] as? String ?? ""
                if let reroute = body["reroute"] as? [String: Any] { return reroute }
            }
            return nil
        }
        let again = try #require(try drive { place, t, state in
            try service.json("/navigation/v1/progress/\(id)?location=\(OSRMCompatibilityTests.text(place))&bearing=90&speed=10&time=\(t)&state=\(state)")
        })
        let rerouted = names((again["routes"] as? [[String: Any]])?.first)
        #expect(!rerouted.isEmpty && !rerouted.contains("Toll Road"), "\(rerouted)")
        // The route takes 100 m of West, 10–20 s at a residential street's speed, to where the client left it: the
        // new route leaves in the next minute (the answer gives minutes).
        #expect(again["depart_at"] as? String == "2026-12-07T08:01", "\(String(describing: again["depart_at"]))")
        // The route sent whole, with its URL and without.
        let route = try #require((answer["routes"] as? [[String: Any]])?.first)
        for request in [url, nil] {
            let sent = try #require(try drive { place, t, state in
                var body: [String: Any] = ["route": route, "location": [place.longitude, place.latitude], "bearing": 90, "speed": 10,
                                           "time": t, "state": state]
                body["request"] = request
                let answer = service.handle(HTTPRequest(method: "POST", target: "/navigation/v1/progress",
                                                        body: Array(try JSONSerialization.data(withJSONObject: body))))
                return (answer.status, try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any] ?? [:])
            })
            let sentNames = names((sent["routes"] as? [[String: Any]])?.first)
            #expect(!sentNames.isEmpty && sentNames.contains("Toll Road") == (request == nil), "\(String(describing: request)): \(sentNames)")
            #expect((sent["depart_at"] as? String) == (request == nil ? nil : "2026-12-07T08:01"), "\(String(describing: sent["depart_at"]))")
        }
        // Refused: a request that is not a string, not a route's URL, or of another profile than the one named; a
        // route whose steps last longer than any route.
        var endless = route
        if var legs = endless["legs"] as? [[String: Any]], var steps = legs[0]["steps"] as? [[String: Any]] {
            steps[0]["duration"] = 1e300
            legs[0]["steps"] = steps
            endless["legs"] = legs
        }
        for (member, value) in [("request", 3 as Any), ("request", "/table/v1/driving/1,2;3,4"), ("profile", "walking"),
                                ("route", endless)] {
            var body: [String: Any] = ["route": route, "location": [a.longitude, a.latitude], "request": url]
            body[member] = value
            let refused = service.handle(HTTPRequest(method: "POST", target: "/navigation/v1/progress",
                                                     body: Array(try JSONSerialization.data(withJSONObject: body))))
            #expect(refused.status == 400, "\(member): \(String(decoding: refused.body, as: UTF8.self))")
        }
    }

    /// A place the router is given for a point is where the route starts, though the point lies nearer another
    /// road; a place that is no place on the graph in use (a graph swapped in since numbers its edges otherwise)
    /// is looked for again.
    @Test func aKnownPlaceIsKeptAndAStaleOneLookedForAgain() throws {
        let (map, engine) = try Self.twoStreets(joinedAtBothEnds: false)
        let graph = try #require(engine.current.graphs[.driving])
        let start = map.position(between: "s", "t", at: 0.6), end = map.position("q")
        let upper = try #require(graph.nearestRoads(to: map.position(between: "p", "q", at: 0.6), count: 1).first)
        #expect(upper.name == "Upper")
        var router = Router(graph: graph)
        let looked = try router.route([start, end])
        #expect(roadNames(looked).first == "Lower")
        let kept = try router.route([start, end], known: [upper, nil])
        #expect(roadNames(kept) == ["Upper"] && kept.waypoints[0].edge == upper.edge, "\(roadNames(kept))")
        // Fewer places than points: the rest are looked for.
        #expect(try router.route([start, end], known: [upper]).waypoints[0].edge == upper.edge)
        #expect(graph.snapPoints([start, end], maxDistance: 100, known: [upper]).map { $0?.edge } == [upper.edge, kept.waypoints[1].edge])
        var stale = upper
        stale.edge = (0..<graph.edgeCount).first { graph.name(ofEdge: $0) == "Lower" }!
        let again = try router.route([start, end], known: [stale, nil])
        #expect(roadNames(again) == roadNames(looked) && abs(again.distance - looked.distance) < 0.01)
    }

    /// A fix off the globe (a library caller's NaN or 1e300) is not kept among the last fixes, so the state's
    /// text, which writes them as whole millionths of a degree, stays writable and readable.
    @Test func aFixOffTheGlobeLeavesTheStateWritable() throws {
        let map = TestMap("""
            a         b
            """)
        map.way("ab", ["highway": "residential"])
        _ = try map.build()
        let engine = try Engine(directory: map.graphDirectory)
        let tracker = ProgressTracker(route: NavigationRoute(try engine.route(RouteQuery(mode: .driving, points: [map.position("a"), map.position("b")])).best))
        var state = tracker.progress(at: Fix(location: map.position(between: "a", "b", at: 0.3), time: 0)).state
        for (i, bad) in [Coordinate(latitude: .nan, longitude: 25), Coordinate(latitude: 1e300, longitude: -1e300)].enumerated() {
            state = tracker.progress(at: Fix(location: bad, time: Double(i + 1)), state: state).state
            #expect(state.recent.count == 1)
            let read = try #require(NavigationState(text: state.text), "\(state.text)")
            #expect(read.recent.count == 1 && abs(read.recent[0].latitude - state.recent[0].latitude) < 1e-6
                    && abs(read.recent[0].longitude - state.recent[0].longitude) < 1e-6, "\(state.text)")
        }
    }

    /// The tracker's state survives its text form, and a damaged text is refused.
    @Test func stateRoundTrips() {
        var state = NavigationState()
        state.offset = 1234.5
        state.time = 99
        state.distances = [3, 40, 41]
        state.againstRoute = 5
        state.spoken = 7
        state.banner = 2
        state.projected = 1240.5
        state.stalled = 3
        state.recent = [Coordinate(latitude: 41.150123, longitude: -8.610456), Coordinate(latitude: 41.15023, longitude: -8.6105)]
        state.askew = 6
        state.heading = 271.5
        #expect(NavigationState(text: state.text) == state)
        #expect(NavigationState(text: NavigationState().text) == NavigationState())
        // A state as servers before the last fixes wrote it.
        #expect(NavigationState(text: "1234.5,99.0,3;40;41,5,7,2,1240.5,3")?.recent == [])
        #expect(NavigationState(text: "1234.5,99.0,3;40;41,5,7,2,1240.5,3,41150123:-8610456")?.askew == 0)
        for bad in ["", "1,2,3", "x,,,0,0,-1,,0", "1,2,1;2;3;4;5,0,0,-1,,0", "1,2,,0,-1,-1,,0", "nan,,,0,0,-1,,0",
                    "1,2,,0,0,-1,,x", "1,2,,0,0,-1", "1,2,,0,0,-1,,0,41150123", "1,2,,0,0,-1,,0,91000000:0", "1,2,,0,0,-1,,0,1:2;",
                    "1,2,,0,0,-1,,0,1:1;1:1;1:1;1:1;1:1", "1,2,,0,0,-1,,0,41.1:0", "1,2,,0,0,-1,,0,,",
                    "1,2,,0,0,-1,,0,,,", "1,2,,0,0,-1,,0,,x,", "1,2,,0,0,-1,,0,,0,nan", "1,2,,0,0,-1,,0,,0,1,"] {
            #expect(NavigationState(text: bad) == nil, "\(bad)")
        }
    }
}
