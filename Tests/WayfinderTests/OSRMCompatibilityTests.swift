import Engine
import Foundation
import GraphImport
import Guidance
import HTTPService
import RoadGraph
import Routing
import Testing

/// OSRM's answers, not only its questions: `compat=osrm`, the options OSRM takes on every service, and tables
/// without holes. Where OSRM itself can run (PyPI's wheel), the answers are compared with its own on the same map.
@Suite struct OSRMCompatibilityTests {
    /// A street a–b–c, open both ways, with a loop back round it (c–e–d–a): a point beside a–b is reached
    /// kerb-side only from one direction.
    static func streetWithLoop() throws -> (TestMap, WayfinderService) {
        let map = TestMap("""
            a          b          c


            d                     e
            """, gridSize: 20)
        map.way("abc", ["highway": "residential", "name": "Front Street"])
        map.way("ceda", ["highway": "residential", "name": "Back Street"])
        _ = try map.build()
        return (map, WayfinderService(engine: try Engine(directory: map.graphDirectory)))
    }

    /// `lon,lat` as OSRM's URLs take it.
    static func text(_ c: Coordinate) -> String { String(format: "%.7f,%.7f", c.longitude, c.latitude) }

    /// A point `metres` north of where the street's node lies (negative: south).
    static func beside(_ map: TestMap, _ a: Character, _ b: Character, north metres: Double) -> Coordinate {
        var p = map.position(between: a, b, at: 0.5)
        p.latitude += metres / (Geo.earthRadius * .pi / 180)
        return p
    }

    @Test func approachesChooseTheSideOfTheRoad() throws {
        let (map, service) = try Self.streetWithLoop()
        let start = Self.text(map.position(between: "d", "e", at: 0.5))
        func distance(_ target: Coordinate, _ approach: String) throws -> Double {
            let (status, body) = try service.json("/route/v1/driving/\(start);\(Self.text(target))?approaches=;\(approach)")
            #expect(status == 200, "\(body)")
            return try #require(((body["routes"] as? [[String: Any]])?.first)?["distance"] as? Double)
        }
        // Travelling west along a–b the north side is on the right (the kerb, where traffic keeps right).
        let north = Self.beside(map, "a", "b", north: 8), south = Self.beside(map, "a", "b", north: -8)
        let free = try distance(north, "unrestricted")
        #expect(try distance(north, "curb") == distance(south, "opposite"), "curb on one side is opposite on the other")
        #expect(try distance(north, "curb") != distance(north, "opposite"), "the side changes the route")
        #expect(try [distance(north, "curb"), distance(north, "opposite")].min()! == free)
        // A side that is not one of OSRM's is refused, as OSRM refuses it.
        let (status, body) = try service.json("/route/v1/driving/\(start);\(Self.text(north))?approaches=;sideways")
        #expect(status == 400 && body["code"] as? String == "InvalidQuery")
    }

    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func approachesAsOSRM() throws {
        let (map, service) = try Self.streetWithLoop()
        let osrm = try OSRMOracle(map: map, profile: "car")
        let start = Self.text(map.position(between: "d", "e", at: 0.5))
        var compared = 0
        for side in [8.0, -8.0] {
            for approach in ["unrestricted", "curb", "opposite"] {
                let target = Self.text(Self.beside(map, "a", "b", north: side))
                let request = "/route/v1/driving/\(start);\(target)?approaches=;\(approach)&overview=false"
                let ours = try service.json(request + "&compat=osrm").object, theirs = try osrm.json(request).object
                let a = try #require(((ours["routes"] as? [[String: Any]])?.first)?["distance"] as? Double)
                let b = try #require(((theirs["routes"] as? [[String: Any]])?.first)?["distance"] as? Double)
                #expect(abs(a - b) < 0.005 * b + 1, "\(approach) at \(side) m: Wayfinder \(a) m, OSRM \(b) m")
                compared += 1
            }
        }
        #expect(compared == 6)
    }

    /// OSRM 26's nearest takes up to 10 points and lists roads per point; one point keeps the flat list.
    @Test func nearestTakesSeveralPoints() throws {
        let (map, service) = try Self.streetWithLoop()
        let a = Self.text(map.position(between: "a", "b", at: 0.3)), d = Self.text(map.position(between: "d", "e", at: 0.6))
        let two = try service.json("/nearest/v1/driving/\(a);\(d)?number=2").object
        let lists = try #require(two["waypoints"] as? [[[String: Any]]])
        #expect(lists.count == 2 && lists.allSatisfy { $0.count == 2 })
        let one = try service.json("/nearest/v1/driving/\(a)?number=2").object
        #expect((one["waypoints"] as? [[String: Any]])?.count == 2)
        let eleven = Array(repeating: a, count: 11).joined(separator: ";")
        let (status, body) = try service.json("/nearest/v1/driving/\(eleven)")
        #expect(status == 400 && body["code"] as? String == "TooBig")
    }

    /// `compat=osrm`'s nearest lists segments as OSRM does, several of one road, nearest first by OSRM's measure,
    /// each where OSRM puts the point and as far; Wayfinder's own lists one per road. Segments tied at a junction
    /// come in the order of OSRM's R-tree, so the lists are compared as sets of places, and the nearest whole.
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func nearestListsSegmentsAsOSRM() throws {
        let map = TestMap("""
            a   g    b     h      c

                     d

            e     i               f
            """, gridSize: 23)
        map.way("agbhc", ["highway": "residential", "name": "North"])
        map.way("bdf", ["highway": "residential", "name": "Crossing"])
        map.way("aeif", ["highway": "residential", "name": "South"])
        let service = try map.served()
        let osrm = try OSRMOracle(map: map, profile: "car")
        func entries(_ body: [String: Any]) -> [(place: String, name: String, nodes: Set<Int64>)] {
            (body["waypoints"] as? [[String: Any]] ?? []).map { w in
                let at = w["location"] as? [Double] ?? [], distance = w["distance"] as? Double ?? -1
                return (String(format: "%.6f,%.6f %.2f", at.first ?? 0, at.last ?? 0, distance), w["name"] as? String ?? "",
                        Set(w["nodes"] as? [Int64] ?? []))
            }
        }
        for (p, q, f, north) in [("g", "b", 0.3, 4.0), ("b", "d", 0.6, -7.0), ("e", "i", 0.45, 11.0), ("d", "f", 0.2, 2.5)] {
            var point = map.position(between: Character(p), Character(q), at: f)
            point.latitude += north / (Geo.earthRadius * .pi / 180)
            let request = "/nearest/v1/driving/\(String(format: "%.6f,%.6f", point.longitude, point.latitude))?number=5"
            let ours = entries(try service.json(request + "&compat=osrm").object), theirs = entries(try osrm.json(request).object)
            #expect(ours.count == 5 && ours.map(\.place).sorted() == theirs.map(\.place).sorted(), "\(request): \(ours) against \(theirs)")
            #expect(ours.first?.name == theirs.first?.name && ours.first?.nodes == theirs.first?.nodes, "\(request)")
            let own = entries(try service.json(request).object)
            #expect(Set(own.map(\.nodes)).count == own.count && own.count <= 5, "one per road without compat=osrm")
        }
    }

    // MARK: OSM nodes

    /// `annotations=nodes`: the OSM node of each point of a leg's line. A point inside a segment stands for the
    /// segment's node behind it at the start and ahead of it at the end, as OSRM lists them.
    @Test func nodesNameTheOSMNodesAlongTheLeg() throws {
        let (map, service) = try Self.streetWithLoop()
        let start = Self.text(map.position(between: "a", "b", at: 0.3)), end = Self.text(map.position(between: "b", "c", at: 0.6))
        let (status, body) = try service.json("/route/v1/driving/\(start);\(end)?annotations=nodes,distance&overview=full&geometries=geojson")
        #expect(status == 200, "\(body)")
        let route = try #require((body["routes"] as? [[String: Any]])?.first)
        let annotation = try #require(((route["legs"] as? [[String: Any]])?.first)?["annotation"] as? [String: Any])
        let nodes = try #require(annotation["nodes"] as? [Int64])
        let lengths = try #require(annotation["distance"] as? [Double])
        let line = try #require((route["geometry"] as? [String: Any])?["coordinates"] as? [[Double]])
        #expect(nodes == ["a", "b", "c"].map { map.nodes[$0]!.id }, "a–b from a, then b, then b–c toward c")
        #expect(nodes.count == line.count && lengths.count == line.count - 1)
    }

    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func nodesAsOSRM() throws {
        let (map, service) = try Self.streetWithLoop()
        let osrm = try OSRMOracle(map: map, profile: "car")
        let pairs = [(("a", "b", 0.3), ("b", "c", 0.6)), (("d", "e", 0.5), ("a", "b", 0.5)), (("b", "c", 0.7), ("b", "c", 0.2))]
        for ((a, b, f), (c, d, g)) in pairs {
            let request = "/route/v1/driving/\(Self.text(map.position(between: Character(a), Character(b), at: f)));"
                + "\(Self.text(map.position(between: Character(c), Character(d), at: g)))?annotations=nodes&overview=false"
            func nodes(_ body: [String: Any]) -> [Int64]? {
                ((((body["routes"] as? [[String: Any]])?.first)?["legs"] as? [[String: Any]])?.first?["annotation"] as? [String: Any])?["nodes"] as? [Int64]
            }
            let ours = try service.json(request + "&compat=osrm").object, theirs = try osrm.json(request).object
            #expect(nodes(ours) != nil && nodes(ours) == nodes(theirs), "\(request): Wayfinder \(ours), OSRM \(theirs)")
        }
    }

    // MARK: Tables

    /// Two islands of streets: the cells between them are unreachable.
    static func twoIslands() throws -> (TestMap, WayfinderService) {
        let map = TestMap("""
            a     b               e     f

            c     d               g     h
            """, gridSize: 30)
        map.way("abdca", ["highway": "residential", "name": "West Island"])
        map.way("efhge", ["highway": "residential", "name": "East Island"])
        _ = try map.build()
        return (map, WayfinderService(engine: try Engine(directory: map.graphDirectory)))
    }

    @Test func fallbackSpeedAndScaleFactor() throws {
        let (map, service) = try Self.twoIslands()
        let points = [map.position(between: "a", "b", at: 0.5), map.position(between: "e", "f", at: 0.5)]
        let coordinates = points.map(Self.text).joined(separator: ";")
        let base = "/table/v1/driving/\(coordinates)?annotations=duration,distance"
        let plain = try service.json(base).object
        #expect((plain["durations"] as? [[Any]])?[0][1] is NSNull, "no road joins the islands")
        #expect(plain["fallback_speed_cells"] == nil)

        let filled = try service.json(base + "&fallback_speed=10").object
        let durations = try #require(filled["durations"] as? [[Double]])
        let distances = try #require(filled["distances"] as? [[Double]])
        let straight = Geo.osrmRulerDistance(points[0], points[1])
        #expect(abs(distances[0][1] - straight) < 0.1)
        #expect(abs(durations[0][1] - straight / 10) < 0.1, "Wayfinder: the straight line's time at 10 m/s")
        #expect((filled["fallback_speed_cells"] as? [[Int]])?.map { $0 } == [[0, 1], [1, 0]])
        // compat=osrm: OSRM 26.10's figure, a tenth of that time.
        let osrmFilled = try service.json(base + "&fallback_speed=10&compat=osrm").object
        let osrmDuration = try #require((osrmFilled["durations"] as? [[Double]])?[0][1])
        #expect(abs(osrmDuration - (straight / 10).rounded(.down) / 10) < 0.01)

        let scaled = try #require(service.json(base + "&scale_factor=2").object["durations"] as? [[Any]])
        let unscaled = try #require(plain["durations"] as? [[Any]])
        let within = try #require(unscaled[0][0] as? Double), scaledWithin = try #require(scaled[0][0] as? Double)
        #expect(within == 0 && scaledWithin == 0)
        let snapped = try service.json("/table/v1/driving/\(Self.text(map.position(between: "a", "b", at: 0.2)));\(Self.text(map.position(between: "c", "d", at: 0.7)))").object
        let once = try #require((snapped["durations"] as? [[Double]])?[0][1])
        let twice = try #require((try service.json("/table/v1/driving/\(Self.text(map.position(between: "a", "b", at: 0.2)));\(Self.text(map.position(between: "c", "d", at: 0.7)))?scale_factor=2").object["durations"] as? [[Double]])?[0][1])
        #expect(abs(twice - 2 * once) <= 0.1 && once > 0)
        for (option, code) in [("scale_factor=0", "InvalidOptions"), ("fallback_speed=-1", "InvalidOptions"),
                               ("fallback_speed=abc", "InvalidQuery"), ("fallback_speed=5&fallback_coordinate=middle", "InvalidQuery")] {
            let (status, body) = try service.json(base + "&" + option)
            #expect(status == 400 && body["code"] as? String == code, "\(option)")
        }
    }

    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func fallbackAsOSRM() throws {
        let (map, service) = try Self.twoIslands()
        let osrm = try OSRMOracle(map: map, profile: "car")
        let coordinates = [map.position(between: "a", "b", at: 0.5), map.position(between: "g", "h", at: 0.3)]
            .map(Self.text).joined(separator: ";")
        for options in ["fallback_speed=5", "fallback_speed=5&fallback_coordinate=snapped", "fallback_speed=3&scale_factor=1.7"] {
            let request = "/table/v1/driving/\(coordinates)?annotations=duration,distance&\(options)"
            let ours = try service.json(request + "&compat=osrm").object, theirs = try osrm.json(request).object
            for key in ["durations", "distances"] {
                let a = try #require(ours[key] as? [[Double]]), b = try #require(theirs[key] as? [[Double]], "\(theirs)")
                for (x, y) in zip(a.joined(), b.joined()) { #expect(abs(x - y) <= 0.1 + 0.001 * y, "\(options) \(key): \(a) vs OSRM \(b)") }
            }
            #expect((ours["fallback_speed_cells"] as? [[Int]]) == (theirs["fallback_speed_cells"] as? [[Int]]))
        }
    }

    /// A one-way trap: a street that can be entered but not left. A point on it is a source only through its second
    /// snap on the network, as OSRM's second phantom on its big component.
    @Test func tableCellsOfATrappedPointAreFilled() throws {
        let map = TestMap("""
            a     b     c

            d     e     f     x
            """, gridSize: 40)
        map.way("abcfeda", ["highway": "residential", "name": "Ring"])
        map.way("fx", ["highway": "residential", "name": "Trap", "oneway": "yes"])
        _ = try map.build()
        let engine = try Engine(directory: map.graphDirectory)
        // 48 m into the trap: within the 100 m a router moves a point to reach the network.
        let points = [map.position(between: "f", "x", at: 0.2), map.position(between: "a", "b", at: 0.5)]
        let table = try engine.table(TableQuery(mode: .driving, points: points))
        let rows = try table.rows(0..<2)
        #expect(rows[1][0] != nil, "into the trap")
        #expect(rows[0][1] != nil, "out of the trap, from its snap on the network")
        // The same pair by route: the router moves the point to the core as well.
        let route = try engine.route(RouteQuery(mode: .driving, points: points))
        #expect(abs(Double(route.best.route.weight) - Double(rows[0][1]!.weight)) <= 1)

        // 144 m in: beyond Wayfinder's 100 m the point is cut off. OSRM (compat=osrm) moves it to its big
        // component however far, but a map this small has none (every component under 1,000 arcs): cut off too.
        let deep = [map.position(between: "f", "x", at: 0.6), map.position(between: "a", "b", at: 0.5)]
        #expect(try engine.table(TableQuery(mode: .driving, points: deep)).rows(0..<2)[0][1] == nil)
        #expect(throws: EngineError.self) { try engine.route(RouteQuery(mode: .driving, points: deep)) }
        var strict = TableQuery(mode: .driving, points: deep)
        strict.compatibility = .osrm
        #expect(try engine.table(strict).rows(0..<2)[0][1] == nil)
    }

    /// On Porto, a point in a one-way trap whose nearest way out is over 100 m away: cut off for Wayfinder, reached
    /// from the main network with compat=osrm, by route and by table alike (OSRM 26.10: 1,244.2 s).
    @Test(.enabled(if: Available.porto, "needs ../shared/data/r5-porto_portugal.osm.pbf"))
    func trappedPointOnPortoAsOSRM() throws {
        let (directory, _, _) = try OracleTests.graphs(for: OracleTests.sharedData.appendingPathComponent("r5-porto_portugal.osm.pbf"))
        let engine = try Engine(directory: directory.path + "/g")
        let points = [Coordinate(latitude: 41.388667, longitude: -8.479679), Coordinate(latitude: 41.15, longitude: -8.61)]
        #expect(try engine.table(TableQuery(mode: .driving, points: points)).rows(0..<2)[0][1] == nil)
        var table = TableQuery(mode: .driving, points: points)
        table.compatibility = .osrm
        let cell = try #require(try engine.table(table).rows(0..<2)[0][1])
        var route = RouteQuery(mode: .driving, points: points)
        route.compatibility = .osrm
        let answer = try engine.route(route)
        #expect(abs(Double(answer.best.route.weight) - Double(cell.weight)) <= 1)
        #expect(answer.best.route.waypoints[0].distance > 100, "moved past Wayfinder's 100 m")
    }

    /// Monaco by car: Rue des Martyrs de la Résistance is a dead end that one-way streets lead into, off OSRM's
    /// big component though it can be reached. OSRM moves a point there onto the nearest road of that component
    /// before it searches, as source and as destination; so do Wayfinder's routes and tables with compat=osrm.
    @Test(.enabled(if: OSRMOracle.available && Available.monaco, "needs OSRM's wheel and nominatim-monaco-latest.osm.pbf"))
    func pointsOffTheBigComponentMoveAsOSRM() throws {
        let extract = OracleTests.sharedData.appendingPathComponent("nominatim-monaco-latest.osm.pbf").path
        let (service, osrm) = try OSRMOracle.beside(extract: extract, fileExtension: "osm.pbf", profile: "car", mode: .driving)
        let trapped = "7.416129,43.739473", others = ["7.425723,43.741640", "7.436999,43.748898", "7.413253,43.730906"]
        for other in others {
            for pair in ["\(other);\(trapped)", "\(trapped);\(other)"] {
                let request = "/route/v1/driving/\(pair)?overview=false"
                let ours = try service.json(request).object, theirs = try osrm.json(request).object
                func figures(_ body: [String: Any]) -> [Double] {
                    let route = (body["routes"] as? [[String: Any]])?.first ?? [:]
                    let ends = (body["waypoints"] as? [[String: Any]] ?? []).flatMap { $0["location"] as? [Double] ?? [] }
                    return ["duration", "distance"].compactMap { route[$0] as? Double } + ends
                }
                let a = figures(ours), b = figures(theirs)
                #expect(a.count == 6 && b.count == 6 && zip(a, b).allSatisfy { abs($0 - $1) <= 0.1 + 1e-9 },
                        "\(pair): Wayfinder \(a), OSRM \(b)")
            }
        }
        let request = "/table/v1/driving/\(([trapped] + others).joined(separator: ";"))"
        let ours = try #require(try service.json(request).object["durations"] as? [[Double]])
        let theirs = try #require(try osrm.json(request).object["durations"] as? [[Double]])
        for (x, y) in zip(ours.joined(), theirs.joined()) { #expect(abs(x - y) <= 0.1 + 1e-9, "table: \(ours) against OSRM's \(theirs)") }
    }

    // MARK: Options

    /// Every option of OSRM's HTTP API, per service: answered (200), or refused with OSRM's error code. None is
    /// ignored in silence.
    @Test func everyOptionIsAppliedOrRefused() throws {
        let (map, service) = try Self.streetWithLoop()
        let p = [map.position(between: "a", "b", at: 0.3), map.position(between: "d", "e", at: 0.6)].map(Self.text)
        let two = p.joined(separator: ";"), one = p[0]
        let common = ["bearings=0,180;", "radiuses=50;unlimited", "approaches=curb;", "exclude=toll", "snapping=any",
                      "generate_hints=false", "skip_waypoints=true", "hints=;"]
        let cases: [(service: String, coordinates: String, ok: [String], refused: [(String, String)])] = [
            ("route", two, common + ["alternatives=2", "steps=true", "geometries=geojson", "overview=full", "annotations=true",
                                     "annotations=duration,datasources", "annotations=nodes,speed", "continue_straight=false", "language=zh", "compat=osrm"],
             [("waypoints=0;1", "NotImplemented"), ("format=json", "InvalidQuery"),
              ("steps=1", "InvalidQuery"), ("overview=true", "InvalidQuery"), ("geometries=kml", "InvalidQuery"),
              ("alternatives=5", "TooBig"), ("approaches=kerb;", "InvalidQuery"), ("snapping=all", "InvalidQuery"),
              ("hints=abc;", "InvalidQuery"), ("generate_hints=1", "InvalidQuery"), ("skip_waypoints=yes", "InvalidQuery"),
              ("radiuses=5", "InvalidOptions"), ("bearings=400,10;", "InvalidOptions"), ("compat=valhalla", "InvalidValue"),
              ("foo=1", "InvalidQuery")]),
            ("table", two, common.filter { !$0.hasPrefix("approaches") } + ["approaches=curb;", "sources=0", "destinations=1",
                "annotations=distance,duration", "fallback_speed=10", "fallback_coordinate=snapped", "scale_factor=1.5"],
             [("steps=true", "InvalidQuery"), ("annotations=speed", "InvalidQuery"), ("scale_factor=0", "InvalidOptions"),
              ("sources=9", "InvalidOptions"), ("fallback_coordinate=other", "InvalidQuery")]),
            ("nearest", one, ["number=3", "bearings=0,180", "radiuses=50", "approaches=curb", "exclude=toll",
                              "snapping=any", "generate_hints=false", "skip_waypoints=true", "hints="],
             [("number=x", "InvalidQuery"), ("steps=true", "InvalidQuery")]),
            ("trip", two, common + ["roundtrip=true", "source=first", "destination=last", "steps=true", "annotations=true"],
             [("roundtrip=maybe", "InvalidQuery"), ("alternatives=1", "InvalidQuery")]),
            ("match", two, ["timestamps=0;60", "radiuses=20;20", "bearings=0,180;", "approaches=curb;", "gaps=ignore",
                            "tidy=true", "steps=true", "annotations=true", "generate_hints=false", "skip_waypoints=true",
                            "snapping=any", "exclude=toll", "hints=;"],
             [("gaps=maybe", "InvalidQuery"), ("waypoints=0;1", "NotImplemented"), ("timestamps=0", "InvalidOptions")]),
        ]
        for (name, coordinates, ok, refused) in cases {
            for option in ok {
                let (status, body) = try service.json("/\(name)/v1/driving/\(coordinates)?\(option)")
                // NoSegment/NoRoute/NoMatch are answers about the map, not about the option.
                #expect(status == 200 || ["NoRoute", "NoSegment", "NoTrips", "NoMatch"].contains(body["code"] as? String ?? ""),
                        "\(name) \(option): \(body)")
            }
            for (option, code) in refused {
                let (status, body) = try service.json("/\(name)/v1/driving/\(coordinates)?\(option)")
                #expect(status == 400 && body["code"] as? String == code, "\(name) \(option): \(body)")
            }
        }
        // The options change the answer where they say they do.
        let skipped = try service.json("/route/v1/driving/\(two)?skip_waypoints=true").object
        #expect(skipped["waypoints"] == nil && skipped["routes"] != nil)
        let nearest = try service.json("/nearest/v1/driving/\(one)?skip_waypoints=true").object
        #expect(nearest.keys.sorted() == ["code"])
        let table = try service.json("/table/v1/driving/\(two)?skip_waypoints=true").object
        #expect(table["sources"] == nil && table["destinations"] == nil && table["durations"] != nil)
        let annotated = try service.json("/route/v1/driving/\(two)?annotations=datasources,distance").object
        let annotation = try #require((((annotated["routes"] as? [[String: Any]])?.first?["legs"] as? [[String: Any]])?.first?["annotation"]) as? [String: Any])
        #expect((annotation["datasources"] as? [Int])?.count == (annotation["distance"] as? [Double])?.count)
        #expect(((annotation["metadata"] as? [String: Any])?["datasource_names"] as? [String]) == ["lua profile"])
        let flat = try service.json("/route/v1/driving/\(two).flatbuffers").object
        #expect(flat["code"] as? String == "NotImplemented")
    }

    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func refusalsUseOSRMCodes() throws {
        let (map, service) = try Self.streetWithLoop()
        let osrm = try OSRMOracle(map: map, profile: "car")
        let two = [map.position(between: "a", "b", at: 0.3), map.position(between: "d", "e", at: 0.6)].map(Self.text)
            .joined(separator: ";")
        // Refusals where OSRM refuses; Wayfinder's own extensions (language, compat) and NotImplemented aside.
        for option in ["foo=1", "steps=1", "overview=true", "geometries=kml", "alternatives=5", "approaches=kerb;",
                       "snapping=all", "hints=abc;", "generate_hints=1", "skip_waypoints=yes", "radiuses=5",
                       "continue_straight=sometimes", "annotations=speedy", "bearings=400,10;"] {
            let request = "/route/v1/driving/\(two)?\(option)"
            let ours = try service.json(request), theirs = try osrm.json(request)
            #expect(ours.status == theirs.status && ours.object["code"] as? String == theirs.object["code"] as? String,
                    "\(option): Wayfinder \(ours.object), OSRM \(theirs.object)")
        }
        for option in ["scale_factor=0", "fallback_speed=-2", "sources=7", "annotations=speed", "fallback_coordinate=x"] {
            let request = "/table/v1/driving/\(two)?\(option)"
            let ours = try service.json(request), theirs = try osrm.json(request)
            #expect(ours.object["code"] as? String == theirs.object["code"] as? String,
                    "\(option): Wayfinder \(ours.object), OSRM \(theirs.object)")
        }
    }

    /// The default URL limit lets through a table as large as the default table limit allows (it refused 400 points
    /// at 8,192 bytes while 1,000 were allowed).
    @Test func theLargestDefaultTableFitsTheDefaultURL() throws {
        let (map, service) = try Self.twoIslands()
        let base = map.position(between: "a", "b", at: 0.5)
        let points = (0..<1000).map { i in
            Self.text(Coordinate(latitude: base.latitude + Double(i % 7) * 1e-5, longitude: base.longitude - Double(i) * 1e-7))
        }
        let target = "/table/v1/driving/\(points.joined(separator: ";"))?sources=0;1;2"
        #expect(target.utf8.count > 20_000)
        let (status, body) = try service.json(target)
        #expect(status == 200, "\(body["code"] ?? "")")
        #expect((body["durations"] as? [[Any]])?.count == 3)
    }

    // MARK: compat=osrm

    /// A point 8 m from a private road and 12 m from a street, and a request routing from it.
    static func privateRoadBeside() throws -> (TestMap, WayfinderService, String) {
        let map = TestMap("""
            a                   b

            c                   d
            """)
        map.way("ab", ["highway": "residential", "name": "Street"])
        map.way("cd", ["highway": "residential", "access": "private", "name": "Private"])
        map.way("ac", ["highway": "residential", "name": "Link"])
        _ = try map.build()
        let middle = map.position(between: "a", "b", at: 0.5)
        let point = Coordinate(latitude: middle.latitude - 12 / 111_195, longitude: middle.longitude)
        let request = "/route/v1/driving/\(text(point));\(text(map.position(between: "a", "c", at: 0.5)))"
        return (map, WayfinderService(engine: try Engine(directory: map.graphDirectory)), request)
    }

    static func firstName(_ body: [String: Any]) -> String? {
        (body["waypoints"] as? [[String: Any]])?.first?["name"] as? String
    }

    /// Wayfinder takes the street (a restricted road must be 10 m nearer); compat=osrm the nearest road.
    @Test func compatibilitySnapsToTheNearestRoad() throws {
        let (_, service, request) = try Self.privateRoadBeside()
        #expect(Self.firstName(try service.json(request).object) == "Street")
        #expect(Self.firstName(try service.json(request + "?compat=osrm").object) == "Private")
    }

    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func nearestRoadAsOSRM() throws {
        let (map, service, request) = try Self.privateRoadBeside()
        let osrm = try OSRMOracle(map: map, profile: "car")
        #expect(Self.firstName(try osrm.json(request).object) == Self.firstName(try service.json(request + "?compat=osrm").object))
    }

    /// A point snapped onto a road lies where OSRM puts it, to the millionth of a degree: the projection's foot in
    /// web Mercator, taken back by the exact inverse, which can land a millionth away from a point already on the
    /// road. The waypoint's distance, the line's first and last points and the leg's length follow from it.
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func snappedPointsLieWhereOSRMPutsThem() throws {
        let map = TestMap("""
            a


                    b


                              c
            """, gridSize: 37)
        map.way("abc", ["highway": "residential", "name": "Diagonal"])
        let service = try map.served()
        let osrm = try OSRMOracle(map: map, profile: "car")
        func place(_ fraction: Double, north: Double) -> String {
            var p = fraction < 0.5 ? map.position(between: "a", "b", at: fraction * 2) : map.position(between: "b", "c", at: fraction * 2 - 1)
            p.latitude += north / (Geo.earthRadius * .pi / 180)
            return String(format: "%.6f,%.6f", p.longitude, p.latitude)
        }
        let points = [(0.07, 0.0), (0.23, 3.1), (0.41, -0.4), (0.58, 0.0), (0.77, -6.3), (0.93, 0.2)].map { place($0, north: $1) }
        var compared = 0
        for (from, to) in Array(zip(points, points.dropFirst(2))) + Array(zip(points.dropFirst(3), points)) {
            let request = "/route/v1/driving/\(from);\(to)?overview=full&geometries=geojson&annotations=distance"
            let ours = try service.json(request + "&compat=osrm").object, theirs = try osrm.json(request).object
            func figures(_ body: [String: Any]) -> (locations: [[Double]], distances: [Double], line: [[Double]], length: Double,
                                                    segments: [Double]) {
                let waypoints = body["waypoints"] as? [[String: Any]] ?? []
                let route = (body["routes"] as? [[String: Any]])?.first ?? [:]
                let line = (route["geometry"] as? [String: Any])?["coordinates"] as? [[Double]] ?? []
                let leg = (route["legs"] as? [[String: Any]])?.first?["annotation"] as? [String: Any] ?? [:]
                return (waypoints.compactMap { $0["location"] as? [Double] }, waypoints.compactMap { $0["distance"] as? Double },
                        line.isEmpty ? [] : [line[0], line[line.count - 1]], route["distance"] as? Double ?? -1,
                        leg["distance"] as? [Double] ?? [])
            }
            let a = figures(ours), b = figures(theirs)
            #expect(a.locations.count == 2 && a.locations == b.locations, "\(request): Wayfinder \(a), OSRM \(b)")
            // To the micrometre, as OSRM prints them unrounded: the waypoints' distances and each segment's length.
            #expect(a.distances.count == 2 && zip(a.distances, b.distances).allSatisfy { abs($0 - $1) <= 1e-5 }, "\(request)")
            #expect(a.segments.count == b.segments.count && zip(a.segments, b.segments).allSatisfy { abs($0 - $1) <= 1e-5 },
                    "\(request): \(a.segments) against \(b.segments)")
            #expect(a.line == b.line && a.line == a.locations, "\(request): the line runs between the waypoints")
            #expect(abs(a.length - b.length) <= 0.05 && b.length > 0, "\(request): \(a.length) m, OSRM \(b.length) m")
            compared += 1
        }
        #expect(compared == 7)
    }

    /// A point on a junction is on every road there: OSRM keeps each as a candidate, starts or ends on whichever is
    /// cheapest (no turn paid that need not be taken), and names the waypoint after all of them. Whichever road
    /// the nearest search meets first, some route from or to the junction below needs another.
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func aPointOnAJunctionIsOnEveryRoadThereAsOSRM() throws {
        let map = TestMap("""
            x    a    y

                 b
            """)
        map.way("xa", ["highway": "residential", "name": "West"])
        map.way("ay", ["highway": "residential", "name": "East"])
        map.way("ab", ["highway": "residential", "name": "South"])
        _ = try map.build(compatibility: .osrm)
        let service = WayfinderService(engine: try Engine(directory: map.graphDirectory), compatibility: .osrm)
        let osrm = try OSRMOracle(map: map, profile: "car")
        func names(_ body: [String: Any]) -> [Set<Substring>] {
            ((body["waypoints"] as? [[String: Any]]) ?? []).map { Set(($0["name"] as? String ?? "").split(separator: " / ")) }
        }
        let junction = map.position("a")
        for other in ["x", "y", "b"].map({ map.position(Character($0)) }) {
            for (from, to) in [(junction, other), (other, junction)] {
                let request = "/route/v1/driving/\(Self.text(from));\(Self.text(to))?overview=false"
                let ours = try service.json(request).object, theirs = try osrm.json(request).object
                let (f, g) = (ImportCompatibilityTests.figures(ours), ImportCompatibilityTests.figures(theirs))
                #expect(f.count == 3 && g.count == 3 && zip(f, g).allSatisfy { abs($0 - $1) <= 0.1 },
                        "\(request): Wayfinder \(f), OSRM \(g)")
                #expect(names(ours) == names(theirs), "\(request)")
            }
        }
        let points = ["a", "x", "y", "b"].map { Self.text(map.position(Character($0))) }.joined(separator: ";")
        let table = "/table/v1/driving/\(points)?annotations=duration"
        let ours = try #require(try service.json(table).object["durations"] as? [[Double]])
        let theirs = try #require(try osrm.json(table).object["durations"] as? [[Double]])
        #expect(ours.count == 4 && zip(ours.joined(), theirs.joined()).allSatisfy { abs($0 - $1) <= 0.1 },
                "Wayfinder \(ours), OSRM \(theirs)")
    }

    /// The rest of a drive on foot is Wayfinder's; `compat=osrm` ends the drive where OSRM does.
    /// `deviations=` turns our guidance rules off one at a time: with none, the steps are `compat=osrm`'s; with all,
    /// the default's; without the name rule alone, a street spelt two ways is announced again. A name not known
    /// is refused, and so is the option where there are no steps to apply it to.
    @Test func deviationsSwitchOneByOne() throws {
        let map = TestMap("""
            a     b     c
                  d
            """, gridSize: 40)
        map.way("ab", ["highway": "residential", "name": "Rua Doutor Alfredo Magalhães"])
        map.way("bc", ["highway": "residential", "name": "Rua do Doutor Alfredo de Magalhães"])
        map.way("bd", ["highway": "residential", "name": "Rua Nova"])
        let service = try map.served()
        let path = "/route/v1/driving/\(Self.text(map.position("a")));\(Self.text(map.position("c")))?steps=true&overview=false"
        func kinds(_ extra: String) throws -> [String] {
            let answer = try service.json(path + extra)
            #expect(answer.status == 200, "\(extra)")
            return GuidanceTests.stepKinds(answer.object)
        }
        let ours = try kinds(""), osrm = try kinds("&compat=osrm")
        #expect(ours == ["depart", "arrive"] && osrm == ["depart", "new name straight", "arrive"])
        #expect(try kinds("&deviations=all") == ours)
        #expect(try kinds("&deviations=none") == osrm)
        #expect(try kinds("&deviations=fold_short_steps,use_lane,tidy_names") == osrm, "the name rule off alone")
        #expect(try kinds("&deviations=names") == ours)
        #expect(try kinds("&deviations=all&compat=osrm") == osrm, "compat=osrm turns every deviation off")
        let bad = try service.json(path + "&deviations=names,shortcuts")
        #expect(bad.status == 400 && (bad.object["message"] as? String ?? "").contains("shortcuts"))
        let table = try service.json("/table/v1/driving/\(Self.text(map.position("a")));\(Self.text(map.position("c")))?deviations=none")
        #expect(table.status == 400, "a table has no steps for deviations to change")
        let noSteps = try service.json(path.replacingOccurrences(of: "steps=true", with: "steps=false") + "&deviations=none")
        #expect(noSteps.status == 400 && noSteps.object["code"] as? String == "InvalidOptions", "nor a route without steps")
        let post = service.handle(HTTPRequest(method: "POST", path: "/route/v1/driving", rawTarget: "/route/v1/driving",
            body: Array(#"{"coordinates": [[25, 60], [25.001, 60]], "deviations": ["names"]}"#.utf8)))
        #expect(post.status == 400 && String(decoding: post.body, as: UTF8.self).contains("deviations must be a string"))
    }

    @Test func compatibilityTurnsOffTheWalkAtTheEnd() throws {
        let map = try GuidanceTests.laneBehindABollard()
        let engine = try Engine(directory: map.graphDirectory)
        var query = RouteQuery(mode: .driving, points: [map.position("a"), map.position("d")])
        let ours = try engine.route(query)
        #expect(ours.best.directions.legs[0].contains { $0.mode == "walking" })
        query.compatibility = .osrm
        let osrm = try engine.route(query)
        #expect(osrm.best.directions.legs[0].allSatisfy { $0.mode == "driving" })
        let drive = ours.best.directions.legs[0].filter { $0.mode == "driving" }.reduce(0) { $0 + $1.distance }
        #expect(abs(osrm.best.route.distance - drive) < 1, "the same drive, without the walk after it")
        // The same through HTTP, per request and as a server's default.
        let path = "/route/v1/driving/\(Self.text(map.position("a")));\(Self.text(map.position("d")))?steps=true"
        func modes(_ service: WayfinderService, _ target: String) throws -> [String] {
            let body = try service.json(target).object
            let steps = (((body["routes"] as? [[String: Any]])?.first?["legs"] as? [[String: Any]])?.first?["steps"] as? [[String: Any]]) ?? []
            return steps.compactMap { $0["mode"] as? String }
        }
        let service = WayfinderService(engine: engine)
        #expect(try modes(service, path).contains("walking"))
        #expect(try !modes(service, path + "&compat=osrm").contains("walking"))
        let strict = WayfinderService(engine: engine, compatibility: .osrm)
        #expect(try !modes(strict, path).contains("walking"))
        #expect(try modes(strict, path + "&compat=wayfinder").contains("walking"))
    }

    /// Names compared as OSRM compares them: "Rua Doutor X" and "Rua Dr. X" are two streets under `compat=osrm`.
    @Test func compatibilityComparesNamesAsOSRM() throws {
        let map = TestMap("""
            a          b          c
            """, gridSize: 20)
        map.way("ab", ["highway": "residential", "name": "Rua Doutor Alfredo Magalhães"])
        map.way("bc", ["highway": "residential", "name": "Rua Dr. Alfredo Magalhães"])
        _ = try map.build()
        let engine = try Engine(directory: map.graphDirectory)
        var query = RouteQuery(mode: .driving, points: [map.position("a"), map.position("c")])
        let ours = try engine.route(query).best.directions.legs[0].map(\.maneuver.type)
        query.compatibility = .osrm
        let theirs = try engine.route(query).best.directions.legs[0].map(\.maneuver.type)
        #expect(ours == [.depart, .arrive])
        #expect(theirs == [.depart, .newName, .arrive])
    }

    /// OSRM orders a junction's roads by their initial angles (2 m along) and moves a road whose perceived angle
    /// breaks that order just past the road before it. Here x–k–c starts off to the south (1.3 m) and then runs
    /// east: it is read as going east, to the left of the road to b, though its first 2 m lie to the right of that
    /// road. OSRM turns x→b half a degree past c's angle, a slight left, not 41° to the right. Car and bike pay what
    /// osrm-routed charges, going to b and to c.
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func roadsKeepTheOrderOfTheirInitialAngles() throws {
        let map = TestMap("""
            w    x       c
                  k





                         b
            """, gridSize: 10)
        map.place("k", metres: 1.3, bearing: 170, from: "x")
        map.way("wx", ["highway": "residential", "name": "A"])
        map.way("xb", ["highway": "residential", "name": "B"])
        map.way("xkc", ["highway": "residential", "name": "C"])
        _ = try map.build(compatibility: .osrm, modes: [.driving, .walking, .cycling])
        let service = WayfinderService(engine: try Engine(directory: map.graphDirectory))
        try Self.expectJunctionCostsAsOSRM(map, service: service, from: ("w", "x"), to: [("x", "b"), ("k", "c")])
    }

    /// By car and by bike, from the middle of `from` to the middle of each of `to`: the cost of the junctions
    /// between (the route's duration less its segments') is osrm-routed's.
    static func expectJunctionCostsAsOSRM(_ map: TestMap, service: WayfinderService, from: (Character, Character),
                                          to: [(Character, Character)]) throws {
        for (profile, mode) in [("car", "driving"), ("bicycle", "cycling")] {
            let osrm = try OSRMOracle(map: map, profile: profile)
            for (a, b) in to {
                let start = map.position(between: from.0, from.1, at: 0.5), end = map.position(between: a, b, at: 0.5)
                let request = "/route/v1/\(mode)/\(text(start));\(text(end))?overview=false&annotations=duration"
                let ours = try #require(DividedRoadTests.junctionCost(try service.json(request + "&compat=osrm").object), "\(mode) to \(b)")
                let theirs = try #require(DividedRoadTests.junctionCost(try osrm.json(request).object), "\(mode) to \(b)")
                #expect(abs(ours - theirs) < 0.05, "\(mode) to \(b): Wayfinder \(ours) s, OSRM \(theirs) s")
            }
        }
    }

    /// OSRM keeps a oneway's signs (`destination`) with its name: where they end and the road goes on, the two
    /// pieces are two roads to it, and a car turning onto the first reads its bearing along that piece alone (here
    /// x–k, 160°, not the whole x–k–c bending to 120°). Bikes have no signs in bicycle.lua, so for them
    /// it stays one road. Car and bike pay what osrm-routed charges.
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func signsPartARoadForCars() throws {
        let map = TestMap("""
                 b
            w    x
                 k          c
            """, gridSize: 10)
        // A short first piece, gently bent from the rest.
        map.place("k", metres: 15, bearing: 160, from: "x")
        map.place("c", metres: 100, bearing: 120, from: "k")
        map.way("wx", ["highway": "residential", "name": "A"])
        map.way("xb", ["highway": "residential", "name": "B"])
        map.way("xk", ["highway": "secondary", "name": "C", "oneway": "yes", "destination": "Porto"])
        map.way("kc", ["highway": "secondary", "name": "C", "oneway": "yes"])
        _ = try map.build(compatibility: .osrm, modes: [.driving, .walking, .cycling])
        let service = WayfinderService(engine: try Engine(directory: map.graphDirectory))
        try Self.expectJunctionCostsAsOSRM(map, service: service, from: ("w", "x"), to: [("x", "k")])
    }

    /// OSRM holds a node at the millionths of a degree it rounds libosmium's double to: -8.3859605 (a tie on paper)
    /// is -8.385960, not -8.385961, and a 121.88 m segment of EN 209 in Porto (nodes 668640300, 668640301) then takes
    /// 6.8 s at 65 km/h, not 6.7 s. Every segment's time as osrm-routed gives it.
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)))
    func nodesRoundedToMillionthsAsOSRMRoundsThem() throws {
        let map = TestMap("""
            a    b    c    d
            """, gridSize: 20)
        map.put("b", at: Coordinate(latitude: 41.2835329, longitude: -8.3864004))
        map.put("c", at: Coordinate(latitude: 41.2845789, longitude: -8.3859605))
        map.place("a", metres: 100, bearing: 200, from: "b")
        map.place("d", metres: 100, bearing: 20, from: "c")
        map.way("abcd", ["highway": "primary", "name": "EN 209"])
        _ = try map.build(compatibility: .osrm)
        let service = WayfinderService(engine: try Engine(directory: map.graphDirectory))
        let osrm = try OSRMOracle(map: map, profile: "car")
        let request = "/route/v1/driving/\(Self.text(map.position(between: "a", "b", at: 0.5)));"
            + "\(Self.text(map.position(between: "c", "d", at: 0.5)))?overview=false&annotations=duration"
        func durations(_ body: [String: Any]) -> [Double] {
            let leg = ((body["routes"] as? [[String: Any]])?.first?["legs"] as? [[String: Any]])?.first
            return (leg?["annotation"] as? [String: Any])?["duration"] as? [Double] ?? []
        }
        let ours = durations(try service.json(request + "&compat=osrm").object), theirs = durations(try osrm.json(request).object)
        #expect(ours.count == 3)
        #expect(ours == theirs)
    }

    /// Routes that start and end inside road pieces cost what OSRM says, to the tenth of a second, and so does each
    /// segment in the annotations: OSRM splits the segment a point is on at whole tenths, cut down, counted from
    /// its road's lower-id end. Points at four places along each segment, every pair both ways, by car and on
    /// foot; in one drawing two ways are joined into one road whose lower-id end is the far one (and, in another,
    /// are one way), in the last a crossing parts the road and a signal stands inside it.
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)), arguments: ["joined", "oneway", "crossed"])
    func routeEndsCostWhatOSRMSays(_ drawing: String) throws {
        let map: TestMap
        if drawing != "crossed" {
            // Two ways of one road, joined by OSRM into one edge whose lower-id end (k) is the far one; one way
            // only, by car, from a (where OSRM counts from, whatever the ids).
            map = TestMap("""
                                     k
                a    b    c    d    e
                """, gridSize: 23)
            let oneway = drawing == "oneway" ? ["oneway": "yes"] : [:]
            map.way("abc", ["highway": "primary", "name": "Main"].merging(oneway) { $1 })
            map.way("cdek", ["highway": "primary", "name": "Main"].merging(oneway) { $1 })
        } else {
            // A crossing at c, and a signal at d that parts the road in OSRM.
            map = TestMap("""
                          n              k
                a    b    c    d    e
                          s
                """, gridSize: 23)
            map.way("abc", ["highway": "primary", "name": "Main"])
            map.way("cdek", ["highway": "primary", "name": "Main"])
            map.way("ncs", ["highway": "residential", "name": "Cross"])
            map.tagNode("d", ["highway": "traffic_signals"])
        }
        _ = try map.build(compatibility: .osrm)
        let service = WayfinderService(engine: try Engine(directory: map.graphDirectory))
        let road = Array("abcdek")
        let points = zip(road, road.dropFirst()).flatMap { a, b in [0.13, 0.37, 0.61, 0.89].map { map.position(between: a, b, at: $0) } }
        for (profile, mode) in [("car", "driving"), ("foot", "walking")] {
            let osrm = try OSRMOracle(map: map, profile: profile)
            var compared = 0
            for (i, from) in points.enumerated() {
                for (j, to) in points.enumerated() where i != j {
                    let request = "/route/v1/\(mode)/\(Self.text(from));\(Self.text(to))?overview=false&annotations=duration,weight"
                    let ours = try service.json(request + "&compat=osrm").object, theirs = try osrm.json(request).object
                    func figures(_ body: [String: Any]) -> (totals: [Double], segments: [Double]) {
                        let route = (body["routes"] as? [[String: Any]])?.first ?? [:]
                        let annotation = ((route["legs"] as? [[String: Any]])?.first?["annotation"] as? [String: Any]) ?? [:]
                        return (["duration", "weight", "distance"].map { route[$0] as? Double ?? -1 },
                                ["duration", "weight"].flatMap { annotation[$0] as? [Double] ?? [] })
                    }
                    let (a, b) = (figures(ours), figures(theirs))
                    #expect(abs(a.totals[0] - b.totals[0]) < 1e-6 && abs(a.totals[1] - b.totals[1]) < 1e-6
                                && abs(a.totals[2] - b.totals[2]) <= 0.1 + 1e-9,
                            "\(drawing) \(mode) \(i)→\(j): duration, weight, distance \(a.totals) against OSRM's \(b.totals)")
                    #expect(a.segments.count == b.segments.count && zip(a.segments, b.segments).allSatisfy { abs($0 - $1) < 1e-6 },
                            "\(drawing) \(mode) \(i)→\(j): annotations \(a.segments) against OSRM's \(b.segments)")
                    compared += 1
                }
            }
            #expect(compared == points.count * (points.count - 1))
        }
    }

    /// Which highways a walker takes without being told, as foot.lua: a short way of each kind beside a 300 m
    /// detour of residential streets. A `highway=road` (of unknown kind) only with `foot=yes`.
    @Test(.enabled(if: OSRMOracle.available, Comment(rawValue: OSRMOracle.skipMessage)),
          arguments: [["highway": "road"], ["highway": "road", "foot": "yes"], ["highway": "footway"], ["highway": "track"],
                      ["highway": "bridleway"], ["highway": "cycleway"], ["highway": "corridor"], ["highway": "trunk"],
                      ["highway": "pier"], ["highway": "road", "junction": "roundabout"]])
    func walkedHighwaysAsFootLua(_ tags: [String: String]) throws {
        let map = TestMap("""
            c         d

            a         b
            """, gridSize: 10)
        map.way("ab", tags)
        map.way("acdb", ["highway": "residential"])
        _ = try map.build(compatibility: .osrm)
        let service = WayfinderService(engine: try Engine(directory: map.graphDirectory))
        let osrm = try OSRMOracle(map: map, profile: "foot")
        let request = "/route/v1/walking/\(Self.text(map.position(between: "a", "b", at: 0.1)));"
            + "\(Self.text(map.position(between: "a", "b", at: 0.9)))?overview=false"
        func distance(_ body: [String: Any]) -> Double { ((body["routes"] as? [[String: Any]])?.first?["distance"] as? Double) ?? -1 }
        let ours = distance(try service.json(request + "&compat=osrm").object), theirs = distance(try osrm.json(request).object)
        #expect(theirs > 0 && abs(ours - theirs) <= 0.1 + 1e-9, "\(tags): Wayfinder \(ours) m, OSRM \(theirs) m")
    }
}
