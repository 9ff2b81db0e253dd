#!/usr/bin/env python3
"""OSRM's own turn penalties at OSM nodes, read from the files osrm-extract writes.

    scripts/osrm_turns.py --data DIR/map.osrm NODE [NODE ...]

For every turn whose via node is one of the given OSM nodes, prints the OSM nodes it comes from and goes to, and
the duration and weight OSRM charges for it (in seconds, as osrm-extract's profile worked them out: turn angle,
traffic lights, U-turns). It reads map.osrm.turn_penalties_index (each turn as three node-based node ids),
map.osrm.turn_duration_penalties and map.osrm.turn_weight_penalties (tenths of a second and the profile's weight
units, in the same order), and map.osrm.nbg_nodes for the OSM id of each node-based node. A turn cost that differs
between the two engines on the same path shows here without routing round it.

A node OSRM compressed away (a node of a road between two junctions) has no turns: it prints none. Weights are
divided by 10, the multiplier of the wheel's car, foot and bicycle profiles. Standard library only.
"""
import argparse
import struct
import sys
import tarfile


def member(path, name):
    with tarfile.open(path) as archive:
        return archive.extractfile(name).read()


def count(path, name):
    return struct.unpack("<Q", member(path, name + ".meta"))[0]


def osm_ids(nodes_file):
    """The OSM id of each node-based node: OSRM's packed vector, blocks of 64 ids each packed in as many 64-bit
    words as an id has bits."""
    packed = member(nodes_file, "/common/nbn_data/osm_node_ids/packed")
    n = count(nodes_file, "/common/nbn_data/osm_node_ids/number_of_elements")
    words = struct.unpack("<%dQ" % (len(packed) // 8), packed)
    blocks = (n + 63) // 64
    if blocks == 0 or len(words) % blocks:
        raise ValueError(f"{nodes_file}: {len(words)} words for {n} ids")
    bits = len(words) // blocks
    mask = (1 << bits) - 1

    def at(i):
        block, j = divmod(i, 64)
        offset = block * bits * 64 + j * bits
        w, b = divmod(offset, 64)
        value = words[w] >> b
        if b + bits > 64:
            value |= words[w + 1] << (64 - b)
        return value & mask

    return [at(i) for i in range(n)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="the .osrm base path osrm-extract wrote (DIR/map.osrm)")
    parser.add_argument("nodes", nargs="+", type=int, help="OSM node ids")
    args = parser.parse_args()
    base = args.data
    try:
        ids = osm_ids(base + ".nbg_nodes")
        index = member(base + ".turn_penalties_index", "/extractor/turn_index")
        durations = member(base + ".turn_duration_penalties", "/common/turn_penalty/duration")
        weights = member(base + ".turn_weight_penalties", "/common/turn_penalty/weight")
    except (OSError, KeyError, tarfile.TarError, ValueError) as error:
        print(f"osrm_turns: cannot read OSRM's files at {base}: {error}", file=sys.stderr)
        return 2
    turns = len(index) // 12
    if len(durations) != 2 * turns or len(weights) != 2 * turns:
        print(f"osrm_turns: {turns} turns but {len(durations)} and {len(weights)} bytes of penalties", file=sys.stderr)
        return 2
    if turns and max(struct.unpack_from("<%dI" % (3 * turns), index)) >= len(ids):
        print(f"osrm_turns: a turn names a node beyond the {len(ids)} of {base}.nbg_nodes", file=sys.stderr)
        return 2
    wanted = set(args.nodes)
    found = 0
    for k in range(turns):
        a, via, b = struct.unpack_from("<3I", index, 12 * k)
        if ids[via] not in wanted:
            continue
        duration = struct.unpack_from("<h", durations, 2 * k)[0] / 10
        weight = struct.unpack_from("<h", weights, 2 * k)[0] / 10
        print(f"{ids[a]} -> {ids[via]} -> {ids[b]}: duration {duration:.1f} s, weight {weight:.1f}")
        found += 1
    if not found:
        print("no turns at these nodes (not junctions in OSRM's graph, or not in it)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
