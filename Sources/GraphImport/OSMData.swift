import OSMReaderShim

/// What the importer reads from an OSM file: highway ways, the nodes they reference and restriction relations.
/// A view over arrays owned by the C++ reader; freed when this object goes away.
final class OSMData {
    private let raw: UnsafeMutablePointer<wf_osm_data>
    private var stringCache: [String?]

    let nodeCount: Int, wayCount: Int, relationCount: Int
    let nodeIDs: UnsafeBufferPointer<Int64>
    let nodeLatitudes: UnsafeBufferPointer<Int32>, nodeLongitudes: UnsafeBufferPointer<Int32>
    let wayIDs: UnsafeBufferPointer<Int64>
    let wayNodeOffsets: UnsafeBufferPointer<UInt64>, wayNodes: UnsafeBufferPointer<UInt32>

    static let missingCoordinate = Int32.min

    convenience init(reading path: String, progress: ((Int, UInt64, UInt64) -> Void)?) throws {
        var error = [CChar](repeating: 0, count: 512)
        final class ProgressBox { let report: ((Int, UInt64, UInt64) -> Void)?; init(_ r: ((Int, UInt64, UInt64) -> Void)?) { report = r } }
        let box = ProgressBox(progress)
        let context = Unmanaged.passUnretained(box).toOpaque()
        let callback: wf_progress_fn = { context, pass, done, total in
            Unmanaged<ProgressBox>.fromOpaque(context!).takeUnretainedValue().report?(Int(pass), done, total)
        }
        let result = withExtendedLifetime(box) {
            wf_osm_read(path, progress == nil ? nil : callback, context, &error, error.count)
        }
        guard let result else {
            throw ImportError.unreadableInput(String(cString: error))
        }
        self.init(result)
    }

    /// OSM data in memory, in libosmium's `format` ("osm" for XML, "pbf").
    convenience init(bytes: [UInt8], format: String) throws {
        var error = [CChar](repeating: 0, count: 512)
        let result = bytes.withUnsafeBytes {
            wf_osm_read_buffer($0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count, format, &error, error.count)
        }
        guard let result else { throw ImportError.unreadableInput(String(cString: error)) }
        self.init(result)
    }

    private init(_ result: UnsafeMutablePointer<wf_osm_data>) {
        raw = result
        let d = result.pointee
        nodeCount = d.node_count
        wayCount = d.way_count
        relationCount = d.relation_count
        nodeIDs = UnsafeBufferPointer(start: d.node_ids, count: d.node_count)
        nodeLatitudes = UnsafeBufferPointer(start: d.node_lats, count: d.node_count)
        nodeLongitudes = UnsafeBufferPointer(start: d.node_lons, count: d.node_count)
        wayIDs = UnsafeBufferPointer(start: d.way_ids, count: d.way_count)
        wayNodeOffsets = UnsafeBufferPointer(start: d.way_node_offsets, count: d.way_count + 1)
        wayNodes = UnsafeBufferPointer(start: d.way_nodes, count: Int(d.way_node_offsets[d.way_count]))
        stringCache = Array(repeating: nil, count: d.string_count)
    }

    deinit { wf_osm_free(raw) }

    func string(_ id: UInt32) -> String {
        if let cached = stringCache[Int(id)] { return cached }
        let text = String(cString: raw.pointee.strings + Int(raw.pointee.string_offsets[Int(id)]))
        stringCache[Int(id)] = text
        return text
    }

    private func tags(from start: UInt64, to end: UInt64) -> Tags {
        var pairs: [(key: String, value: String)] = []
        pairs.reserveCapacity(Int(end - start))
        for i in Int(start)..<Int(end) {
            let tag = raw.pointee.tags[i]
            pairs.append((string(tag.key), string(tag.value)))
        }
        return Tags(pairs)
    }

    func wayTags(_ way: Int) -> Tags {
        tags(from: raw.pointee.way_tag_offsets[way], to: raw.pointee.way_tag_offsets[way + 1])
    }

    /// Node indices of a way, in order (references to missing nodes included; the builder drops them).
    func nodes(ofWay way: Int) -> UnsafeBufferPointer<UInt32> {
        UnsafeBufferPointer(rebasing: wayNodes[Int(wayNodeOffsets[way])..<Int(wayNodeOffsets[way + 1])])
    }

    func hasCoordinate(_ node: UInt32) -> Bool { nodeLatitudes[Int(node)] != Self.missingCoordinate }

    /// Referenced nodes that carry tags, with their tags.
    func forEachTaggedNode(_ body: (UInt32, Tags) -> Void) {
        let d = raw.pointee
        for i in 0..<d.tagged_node_count {
            body(d.tagged_nodes[i], tags(from: d.tagged_node_tag_offsets[i], to: d.tagged_node_tag_offsets[i + 1]))
        }
    }

    struct Relation {
        var id: Int64
        var tags: Tags
        var members: [(type: Character, ref: Int64, role: String)]

        /// The refs of the members with this role and type (`n`, `w` or `r`), in order.
        func refs(role: String, type: Character) -> [Int64] {
            members.filter { $0.role == role && $0.type == type }.map(\.ref)
        }
    }

    func relation(_ i: Int) -> Relation {
        let d = raw.pointee
        var members: [(type: Character, ref: Int64, role: String)] = []
        for m in Int(d.relation_member_offsets[i])..<Int(d.relation_member_offsets[i + 1]) {
            let member = d.members[m]
            members.append((Character(UnicodeScalar(UInt8(bitPattern: member.type))), member.ref, string(member.role)))
        }
        return Relation(id: d.relation_ids[i], tags: tags(from: d.relation_tag_offsets[i], to: d.relation_tag_offsets[i + 1]),
                        members: members)
    }

    /// Index of a way id (built on first use: only restrictions need it).
    func wayIndex(ofID id: Int64) -> Int32? {
        if wayIndexByID == nil {
            var map: [Int64: Int32] = [:]
            map.reserveCapacity(wayCount)
            for (i, wayID) in wayIDs.enumerated() where map[wayID] == nil { map[wayID] = Int32(i) }
            wayIndexByID = map
        }
        return wayIndexByID![id]
    }
    private var wayIndexByID: [Int64: Int32]?

    /// Dense index of a node id, if some kept way references it.
    func nodeIndex(ofID id: Int64) -> UInt32? {
        var low = 0, high = nodeCount
        while low < high {
            let mid = (low + high) / 2
            if nodeIDs[mid] < id { low = mid + 1 } else { high = mid }
        }
        return low < nodeCount && nodeIDs[low] == id ? UInt32(low) : nil
    }
}

public enum ImportError: Error, CustomStringConvertible {
    case unreadableInput(String)
    case cannotWrite(String)
    /// An option the import cannot use (an unknown time zone), refused before the extract is read.
    case invalidOption(String)

    public var description: String {
        switch self {
        case .invalidOption(let why): return why
        case .unreadableInput(let why): return "cannot read OSM data: \(why)"
        case .cannotWrite(let why): return why
        }
    }
}
