import Guidance
import RoadGraph
import Routing

/// How the route line is encoded in OSRM responses (`geometries=`).
public enum GeometryEncoding: String, Sendable {
    case polyline, polyline6, geojson
}

/// The OSRM v5 `route` service response.
public enum OSRMRouteResponse {
    /// OSRM's `overview`: the whole line, a simplified one, or none.
    public enum Overview: String, Sendable {
        case full, simplified
        case none = "false"
    }

    /// OSRM's per-segment `annotations`.
    public enum Annotation: String, CaseIterable, Sendable {
        case distance, duration, speed, weight
        /// Where each segment's speed came from: an index into `metadata.datasource_names`. Speeds come from
        /// the profile alone (no speed files yet), so every index is 0.
        case datasources
        /// The OSM node of each point of the leg's line.
        case nodes
    }

    public struct Options: Sendable {
        public var geometries: GeometryEncoding = .polyline
        public var steps = true
        public var overview = Overview.full
        public var annotations: [Annotation] = []
        public var includeWaypoints = true
        /// A leg's `summary` without steps: Wayfinder names the leg's main roads either way; OSRM leaves it empty
        /// when no steps were asked for (`compat=osrm`).
        public var summaryWithoutSteps = true
        public init() {}
    }

    /// `alternatives` follow the main route in `routes`, as OSRM lists them. `departure`: when a route asked for at
    /// a time leaves, in the extract's local time (a `depart_at` member after OSRM's).
    public static func make(_ best: GuidedRoute, graph: RoadGraph, options: Options = Options(),
                            alternatives: [GuidedRoute] = [], departure: LocalTime? = nil) -> JSON
    {
        var members: [(String, JSON)] = [
            ("code", .string("Ok")),
            ("routes", .array(([best] + alternatives).map { routeObject($0, graph: graph, options: options) })),
        ]
        if options.includeWaypoints {
            members.append(("waypoints", .array(best.route.waypoints.enumerated().map { i, snap in
                waypoint(snap, name: best.directions.waypointNames[i])
            })))
        }
        if let departure { members.append(("depart_at", .string(departure.description))) }
        return .object(members)
    }

    /// An OSRM error body: `{"code": "NoRoute", "message": "..."}`.
    public static func error(code: String, message: String) -> JSON {
        .object([("code", .string(code)), ("message", .string(message))])
    }

    public static func routeObject(_ guided: GuidedRoute, graph: RoadGraph, options: Options) -> JSON {
        let (route, directions) = (guided.route, guided.directions)
        var members: [(String, JSON)] = []
        switch options.overview {
        case .full: members.append(("geometry", geometry(route.coordinates, options.geometries)))
        case .simplified: members.append(("geometry", geometry(Simplification.simplify(route.coordinates), options.geometries)))
        case .none: break
        }
        let legs = zip(route.legs, directions.legs).map { leg($0, steps: $1, graph: graph, options, extensions: directions.options) }
        // As MapKit's route says hasTolls and hasHighways: what the route's classes include.
        let classes = route.classes
        members += [
            ("legs", .array(legs)),
            ("weight_name", .string(route.mode == .driving ? "routability" : "duration")),
            ("weight", .number(Double(route.weight) / 1000, decimals: 1)),
            ("duration", .number(route.duration, decimals: 1)),
            ("distance", .number(route.distance, decimals: 1)),
            ("has_tolls", .bool(classes.contains(.toll))),
            ("has_highways", .bool(classes.contains(.motorway))),
            ("has_ferries", .bool(classes.contains(.ferry))),
        ]
        // Mapbox Directions: the language the announcements are spoken in.
        if directions.options.voiceInstructions && options.steps { members.append(("voiceLocale", .string(directions.phrases.language))) }
        return .object(members)
    }

    static func leg(_ leg: RouteLeg, steps: [GuidanceStep], graph: RoadGraph, _ options: Options,
                    extensions: DirectionsOptions = DirectionsOptions()) -> JSON {
        var members: [(String, JSON)] = [
            ("steps", options.steps ? Self.steps(steps, options, extensions: extensions) : .array([])),
            ("summary", .string(options.steps || options.summaryWithoutSteps ? leg.summary : "")),
            ("weight", .number(Double(leg.weight) / 1000, decimals: 1)),
            ("duration", .number(leg.duration, decimals: 1)),
            ("distance", .number(leg.distance, decimals: 1)),
        ]
        if !options.annotations.isEmpty { members.append(("annotation", annotation(leg, options.annotations, graph: graph))) }
        return .object(members)
    }

    /// Per segment of the leg's line: its length, and its time and weight as OSRM gives them
    /// (`RoadGraph.segmentValues`): of travel along the road, the turns and the delays at nodes in the leg's total only.
    static func annotation(_ leg: RouteLeg, _ kinds: [Annotation], graph: RoadGraph) -> JSON {
        let distances = leg.stretches.flatMap { stretch in
            (stretch.coordinates.lowerBound..<stretch.coordinates.upperBound).map {
                Geo.osrmRulerDistance(leg.coordinates[$0], leg.coordinates[$0 + 1])
            }
        }
        let durations = kinds.contains(.duration) || kinds.contains(.speed) ? graph.segmentValues(along: leg) : []
        let weights = kinds.contains(.weight) ? graph.segmentValues(along: leg, weights: true) : []
        var members: [(String, JSON)] = []
        for kind in kinds {
            switch kind {
            // Unrounded as OSRM's (to the micrometre): a client that adds them up gets the leg's length.
            case .distance: members.append(("distance", .array(distances.map { .number($0, decimals: 6) })))
            case .duration: members.append(("duration", .array(durations.map { .number($0, decimals: 1) })))
            case .weight: members.append(("weight", .array(weights.map { .number($0, decimals: 1) })))
            case .speed:
                members.append(("speed", .array(zip(distances, durations).map { .number($1 > 0 ? $0 / $1 : 0, decimals: 1) })))
            case .datasources:
                members.append(("datasources", .array(distances.map { _ in .number(0, decimals: 0) })))
                members.append(("metadata", .object([("datasource_names", .array([.string("lua profile")]))])))
            case .nodes:
                members.append(("nodes", .array(graph.nodeIDs(along: leg).map { .number(Double($0), decimals: 0) })))
            }
        }
        return .object(members)
    }

    /// A leg's steps, written straight as JSON text (a route has a few thousand values in them).
    static func steps(_ steps: [GuidanceStep], _ options: Options, extensions: DirectionsOptions) -> JSON {
        var out = JSONWriter(capacity: 512 * steps.count)
        out.beginArray()
        // Read in place: a `for` over the array would copy each step, retaining its strings and arrays.
        steps.withUnsafeBufferPointer { s in
            for i in s.indices { write(s.baseAddress! + i, options, extensions: extensions, to: &out) }
        }
        out.endArray()
        return .fragment(out.bytes())
    }

    /// Through a pointer, because a step read from its array and passed by value, even `borrowing`, is copied whole.
    @inline(__always) static func write(_ step: UnsafePointer<GuidanceStep>, _ options: Options, extensions: DirectionsOptions,
                                        to out: inout JSONWriter) {
        let m = step.pointee.maneuver
        out.beginObject()
        out.key("geometry")
        write(step.pointee.coordinates, options.geometries, to: &out)
        out.key("maneuver")
        out.beginObject()
        out.key("bearing_after"); out.number(m.bearingAfter)
        out.key("bearing_before"); out.number(m.bearingBefore)
        out.key("location"); write(m.location, to: &out)
        out.key("type"); out.string(m.type.rawValue)
        if let modifier = m.modifier { out.key("modifier"); out.string(modifier.rawValue) }
        if let exit = m.exit { out.key("exit"); out.number(exit) }
        out.key("instruction"); out.string(step.pointee.instruction)
        out.endObject()
        out.key("mode"); out.string(step.pointee.mode)
        out.key("driving_side"); out.string("right")
        out.key("name"); out.string(step.pointee.name)
        // OSRM writes these only when the road has them.
        if !step.pointee.ref.isEmpty { out.key("ref"); out.string(step.pointee.ref) }
        if !step.pointee.pronunciation.isEmpty { out.key("pronunciation"); out.string(step.pointee.pronunciation) }
        if !step.pointee.destinations.isEmpty { out.key("destinations"); out.string(step.pointee.destinations) }
        if !step.pointee.exits.isEmpty { out.key("exits"); out.string(step.pointee.exits) }
        if let rotary = step.pointee.rotaryName {
            out.key("rotary_name"); out.string(rotary)
            if let spoken = step.pointee.rotaryPronunciation, !spoken.isEmpty { out.key("rotary_pronunciation"); out.string(spoken) }
        }
        out.key("intersections")
        out.beginArray()
        step.pointee.intersections.withUnsafeBufferPointer { all in
            for k in all.indices { write(all.baseAddress! + k, to: &out) }
        }
        out.endArray()
        if extensions.voiceInstructions {
            out.key("voiceInstructions")
            out.beginArray()
            for voice in step.pointee.voiceInstructions { write(voice, to: &out) }
            out.endArray()
        }
        if extensions.bannerInstructions {
            out.key("bannerInstructions")
            out.beginArray()
            for banner in step.pointee.bannerInstructions { write(banner, to: &out) }
            out.endArray()
        }
        out.key("weight"); out.number(step.pointee.weight, decimals: 1)
        out.key("duration"); out.number(step.pointee.duration, decimals: 1)
        out.key("distance"); out.number(step.pointee.distance, decimals: 1)
        out.endObject()
    }

    static func write(_ voice: VoiceInstruction, to out: inout JSONWriter) {
        out.beginObject()
        out.key("distanceAlongGeometry"); out.number(voice.distanceAlongGeometry, decimals: 1)
        out.key("announcement"); out.string(voice.announcement)
        out.key("ssmlAnnouncement"); out.string(voice.ssmlAnnouncement)
        out.endObject()
    }

    static func write(_ banner: BannerInstruction, to out: inout JSONWriter) {
        out.beginObject()
        out.key("distanceAlongGeometry"); out.number(banner.distanceAlongGeometry, decimals: 1)
        out.key("primary"); write(banner.primary, to: &out)
        if let secondary = banner.secondary { out.key("secondary"); write(secondary, to: &out) }
        if let sub = banner.sub { out.key("sub"); write(sub, to: &out) }
        out.endObject()
    }

    /// One voice instruction as its step's list has it.
    public static func json(_ voice: VoiceInstruction) -> JSON {
        var out = JSONWriter(capacity: 256)
        write(voice, to: &out)
        return .fragment(out.bytes())
    }

    /// One banner instruction as its step's list has it.
    public static func json(_ banner: BannerInstruction) -> JSON {
        var out = JSONWriter(capacity: 512)
        write(banner, to: &out)
        return .fragment(out.bytes())
    }

    /// A banner's line, in Mapbox Directions' shape.
    static func write(_ line: BannerText, to out: inout JSONWriter) {
        out.beginObject()
        out.key("text"); out.string(line.text)
        if let type = line.type { out.key("type"); out.string(type.rawValue) }
        if let modifier = line.modifier { out.key("modifier"); out.string(modifier.rawValue) }
        if let degrees = line.degrees {
            out.key("degrees"); out.number(degrees)
            out.key("driving_side"); out.string("right")
        }
        out.key("components")
        out.beginArray()
        for c in line.components {
            out.beginObject()
            out.key("text"); out.string(c.text)
            out.key("type"); out.string(c.kind.rawValue)
            if c.kind == .lane {
                out.key("directions")
                out.beginArray()
                for d in c.directions { out.string(d) }
                out.endArray()
                out.key("active"); out.bool(c.active ?? false)
                if let active = c.activeDirection { out.key("active_direction"); out.string(active) }
            }
            out.endObject()
        }
        out.endArray()
        out.endObject()
    }

    @inline(__always) static func write(_ i: UnsafePointer<Intersection>, to out: inout JSONWriter) {
        out.beginObject()
        if let outIndex = i.pointee.outIndex { out.key("out"); out.number(outIndex) }
        if let inIndex = i.pointee.inIndex { out.key("in"); out.number(inIndex) }
        out.key("entry")
        out.beginArray()
        for road in i.pointee.roads { out.bool(road.entry) }
        out.endArray()
        out.key("bearings")
        out.beginArray()
        for road in i.pointee.roads { out.number(road.bearing) }
        out.endArray()
        out.key("location"); write(i.pointee.location, to: &out)
        // Written from the table of names, with no list per intersection.
        if ArcClasses.names.contains(where: { i.pointee.classes.contains($0.0) }) {
            out.key("classes")
            out.beginArray()
            for (flag, name) in ArcClasses.names where i.pointee.classes.contains(flag) { out.string(name) }
            out.endArray()
        }
        if !i.pointee.lanes.isEmpty {
            out.key("lanes")
            out.beginArray()
            for lane in i.pointee.lanes {
                out.beginObject()
                out.key("indications")
                out.beginArray()
                for indication in lane.indications { out.string(indication) }
                out.endArray()
                out.key("valid"); out.bool(lane.valid)
                out.endObject()
            }
            out.endArray()
        }
        out.endObject()
    }

    static func write(_ c: Coordinate, to out: inout JSONWriter) {
        out.beginArray()
        out.number(c.longitude, decimals: 6)
        out.number(c.latitude, decimals: 6)
        out.endArray()
    }

    static func write(_ coordinates: [Coordinate], _ encoding: GeometryEncoding, to out: inout JSONWriter) {
        switch encoding {
        case .polyline: out.polyline(coordinates, precision: 5)
        case .polyline6: out.polyline(coordinates, precision: 6)
        case .geojson:
            out.beginObject()
            out.key("type"); out.string("LineString")
            out.key("coordinates")
            out.beginArray()
            for c in coordinates { write(c, to: &out) }
            out.endArray()
            out.endObject()
        }
    }

    public static func waypoint(_ snap: Snap, name: String) -> JSON {
        .object([
            ("distance", .number(snap.distance, decimals: 6)),
            ("name", .string(name)),
            ("location", location(snap.location)),
        ])
    }

    /// A `nearest` answer's waypoint, with the OSM nodes of the segment the point lies on (OSRM's `nodes`) where
    /// the graph keeps node ids: in the road's drawn order. OSRM 26.10 lists a two-way road's pair in the order of
    /// its own copy of the road (either), and a one-way road's past its first segment as one node twice: the set
    /// is what a client can key on, and Wayfinder gives it in one order.
    public static func nearestWaypoint(_ snap: Snap, graph: RoadGraph) -> JSON {
        let plain = waypoint(snap, name: graph.name(ofEdge: snap.edge))
        guard graph.hasNodeIDs, case .object(var members) = plain else { return plain }
        let ends = [graph.shapeNodeIDs[snap.segment], graph.shapeNodeIDs[snap.segment + 1]]
        members.append(("nodes", .array(ends.map { .number(Double($0), decimals: 0) })))
        return .object(members)
    }

    /// A table's waypoints; `null` for a point that found no road (its row or column is all nulls).
    public static func waypoints(_ snaps: [Snap?], graph: RoadGraph) -> JSON {
        .array(snaps.map { $0.map { waypoint($0, name: graph.name(ofEdge: $0.edge)) } ?? .null })
    }

    /// `[longitude, latitude]`, six decimals, as OSRM and GeoJSON order them.
    public static func location(_ c: Coordinate) -> JSON {
        .array([.number(c.longitude, decimals: 6), .number(c.latitude, decimals: 6)])
    }

    /// A line as its encoding writes it (the same writer as a step's geometry).
    public static func geometry(_ coordinates: [Coordinate], _ encoding: GeometryEncoding) -> JSON {
        var out = JSONWriter(capacity: coordinates.count * (encoding == .geojson ? 28 : 8) + 32)
        write(coordinates, encoding, to: &out)
        return .fragment(out.bytes())
    }
}
