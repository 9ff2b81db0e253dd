#!/usr/bin/env python3
"""OSRM's own guidance scenarios, run on Wayfinder: the share of their route rows Wayfinder answers as OSRM's tests
expect.

    scripts/guidance_scenarios.py --osrm-repo DIR [--ref HEAD] [--features features/guidance] [--only NAME]
        [--wayfinder BIN] [--compat osrm|wayfinder] [--show N] [--json OUT]

OSRM's cucumber features (features/guidance/*.feature in an OSRM checkout or bare mirror, read with `git show`,
never copied) draw small maps as text, list their ways and nodes, and give the steps OSRM must answer for each
pair of points. For each scenario this script writes the map as OSM XML, imports it with `wayfinder import`, routes
every row with `wayfinder route --format json` (with `--compat osrm` unless told otherwise), and compares the row's
`route` (step names), `turns` (step types and modifiers), `lanes` and `locations` (the drawn node at each maneuver)
columns, those the row has, with what Wayfinder says; other columns are not checked. It prints the share
of rows that match, per feature file and in all, the scenarios it could not run and why (a step it does not
understand, a profile other than car or foot), and with --show N the first N rows that differ.

Exit status: 0 when it ran (whatever the share), 2 on a setup failure. Standard library only."""
import argparse
import collections
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

# The harness's conventions (OSRM's features/support): a node map's characters are `grid` metres apart, in both
# directions, from an origin; letters are OSM nodes, digits are points to route from and to that are not in the data.
DEFAULT_GRID = 100.0
ORIGIN = (1.0, 1.0)  # longitude, latitude
METRES_PER_DEGREE = 6378137 * math.pi / 180  # OSRM's harness converts with the WGS84 radius


class Unsupported(Exception):
    """A scenario uses a step or setting this runner does not reproduce."""


def parse_feature(text):
    """Background steps and scenarios, each step as (keyword text, docstring or None, table rows or None)."""
    background, scenarios, current = [], [], None
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        raw = lines[i]
        line = raw.strip()
        i += 1
        if not line or line.startswith("#") or line.startswith("@"):
            continue
        if line.startswith("Background:"):
            current = background
            continue
        if line.startswith("Scenario Outline:") or line.startswith("Scenario:"):
            current = {"name": line.split(":", 1)[1].strip(), "steps": [], "outline": line.startswith("Scenario Outline")}
            scenarios.append(current)
            current = current["steps"]
            continue
        if line.startswith("Feature:") or current is None:
            continue
        if line.startswith("Examples:"):
            current.append(("Examples:", None, None))
            continue
        step = re.sub(r"^(Given|And|When|Then|But)\s+", "", line)
        doc, table = None, None
        if i < len(lines) and lines[i].strip().startswith('"""'):
            indent = len(lines[i]) - len(lines[i].lstrip())
            i += 1
            body = []
            while i < len(lines) and not lines[i].strip().startswith('"""'):
                body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i].lstrip())
                i += 1
            i += 1
            doc = body
        rows = []
        while i < len(lines) and (lines[i].strip().startswith("|") or (rows and lines[i].strip().startswith("#"))):
            if lines[i].strip().startswith("|"):  # comments may sit between a table's rows
                rows.append(table_cells(lines[i].strip()))
            i += 1
        if rows:
            table = rows
        current.append((step, doc, table))
    return background, scenarios


def table_cells(line):
    """A Gherkin table row's cells: `|` separates them, `\\|` is a bar inside one (turn:lanes values)."""
    cells, cell, k = [], "", 1
    while k < len(line):
        ch = line[k]
        if ch == "\\" and k + 1 < len(line):
            nxt = line[k + 1]
            cell += {"|": "|", "\\": "\\", "n": "\n"}.get(nxt, "\\" + nxt)
            k += 2
            continue
        if ch == "|":
            cells.append(cell.strip())
            cell = ""
        else:
            cell += ch
        k += 1
    return cells


def as_dicts(table):
    header = table[0]
    return [dict(zip(header, row + [""] * (len(header) - len(row)))) for row in table[1:]]


def ruler_factors(lat):
    """Metres per degree of longitude and latitude at `lat`, by the cheap ruler OSRM's harness draws maps with."""
    re_km, fe = 6378.137, 1 / 298.257223563
    e2 = fe * (2 - fe)
    m = math.pi / 180 * re_km * 1000
    coslat = math.cos(lat * math.pi / 180)
    w2 = 1 / (1 - e2 * (1 - coslat * coslat))
    w = math.sqrt(w2)
    return m * w * coslat, m * w * w2 * (1 - e2)


class Scenario:
    """One scenario's map and checks, built from its steps."""

    def __init__(self, name):
        self.name = name
        self.grid = DEFAULT_GRID
        self.origin = ORIGIN
        self.profile = None
        self.points = {}  # name -> (lon, lat)
        self.node_tags = collections.defaultdict(dict)
        self.ways = []  # (node string, tags)
        self.relations = []  # (members [(type, ref, role)], tags)
        self.checks = []  # (table rows as dicts)

    def apply(self, step, doc, table):
        m = re.fullmatch(r'the profile "(\w+)"', step)
        if m:
            self.profile = m.group(1)
            return
        m = re.fullmatch(r"a grid size of ([0-9.]+) meters", step)
        if m:
            self.grid = float(m.group(1))
            return
        m = re.fullmatch(r"the origin ([-0-9.]+),([-0-9.]+)", step)
        if m:
            self.origin = (float(m.group(1)), float(m.group(2)))
            return
        if step == "the node map" and doc is not None:
            kx, ky = ruler_factors(self.origin[1])
            for ri, line in enumerate(doc):
                for ci, ch in enumerate(line):
                    if ch.isdigit() or ("a" <= ch <= "z"):
                        if ch in self.points:
                            raise Unsupported(f"node {ch} drawn twice")
                        x, y = ci * 0.5 * self.grid, -ri * self.grid
                        self.points[ch] = (self.origin[0] + x / kx, self.origin[1] + y / ky)
            return
        if step == "the nodes" and table:
            for row in as_dicts(table):
                node = row.pop("node")
                if "id" in row:
                    raise Unsupported("nodes with ids of their own")
                self.node_tags[node].update(row)
            return
        if step == "the ways" and table:
            for row in as_dicts(table):
                nodes = row.pop("nodes")
                if not nodes or any(c not in self.points or c.isdigit() for c in nodes):
                    raise Unsupported(f"way through unknown nodes {nodes!r}")
                tags = {"highway": "primary"}
                if "name" not in row:
                    tags["name"] = nodes
                for key, value in row.items():
                    if value == "(nil)" or (key == "name" and value == ""):
                        tags.pop(key, None)
                    elif key == "name" and value in ('""', "''"):
                        tags["name"] = ""
                    else:
                        tags[key] = value
                self.ways.append((nodes, tags))
            return
        if step == "the relations" and table:
            for cells in table[1:]:
                members, tags = [], {}
                # Pairs, not a dict: a header may repeat (two `way:via` columns).
                for key, value in zip(table[0], cells):
                    kind, _, role = key.partition(":")
                    if kind in ("node", "way", "relation") and not key.startswith("restriction:"):
                        for ref in filter(None, (v.strip() for v in value.split(","))):
                            members.append((kind, ref, role))
                    elif value != "":
                        tags[key] = value
                self.relations.append((members, tags))
            return
        if step == "I route I should get" and table:
            self.checks.append(as_dicts(table))
            return
        raise Unsupported(f"step {step!r}")

    def xml(self):
        ids = {}
        out = ['<?xml version="1.0" encoding="UTF-8"?>', '<osm version="0.6" generator="guidance_scenarios">']
        for name, (lon, lat) in sorted(self.points.items()):
            if name.isdigit():
                continue
            ids[name] = len(ids) + 1
            tags = {"name": name, **self.node_tags.get(name, {})}
            out.append(f'<node id="{ids[name]}" version="1" lat="{lat:.8f}" lon="{lon:.8f}">'
                       + "".join(f'<tag k="{esc(k)}" v="{esc(v)}"/>' for k, v in tags.items()) + "</node>")
        way_ids = {}
        next_id = len(ids) + 1
        for nodes, tags in self.ways:
            way_ids.setdefault(nodes, next_id)
            out.append(f'<way id="{next_id}" version="1">' + "".join(f'<nd ref="{ids[c]}"/>' for c in nodes)
                       + "".join(f'<tag k="{esc(k)}" v="{esc(v)}"/>' for k, v in tags.items()) + "</way>")
            next_id += 1
        for members, tags in self.relations:
            parts = []
            for kind, ref, role in members:
                if kind == "node":
                    if ref not in ids:
                        raise Unsupported(f"relation member node {ref}")
                    parts.append(f'<member type="node" ref="{ids[ref]}" role="{esc(role)}"/>')
                elif kind == "way":
                    way = way_ids.get(ref) or way_ids.get(ref[::-1])
                    if way is None:
                        raise Unsupported(f"relation member way {ref}")
                    parts.append(f'<member type="way" ref="{way}" role="{esc(role)}"/>')
                else:
                    raise Unsupported("relation members that are relations")
            out.append(f'<relation id="{next_id}" version="1">' + "".join(parts)
                       + "".join(f'<tag k="{esc(k)}" v="{esc(v)}"/>' for k, v in tags.items()) + "</relation>")
            next_id += 1
        out.append("</osm>")
        return "\n".join(out)


def esc(s):
    return s.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


def turn_text(step):
    """A step as the harness's `turns` column writes it."""
    m = step["maneuver"]
    kind, modifier = m.get("type"), m.get("modifier")
    if kind in ("depart", "arrive"):
        return kind
    if kind == "roundabout":
        return f"roundabout-exit-{m.get('exit', 'undefined')}"
    if kind == "rotary":
        return f"{step.get('rotary_name') or 'rotary'}-exit-{m.get('exit', 'undefined')}"
    if kind == "roundabout turn":
        return f"roundabout turn {modifier} exit-{m.get('exit', 'undefined')}"
    return f"{kind} {modifier}" if modifier else kind


CHECKED = ("route", "turns", "lanes", "locations")


def lanes_text(step):
    """A step's lanes as the harness writes them: per intersection `indications:valid` separated by spaces."""
    return ";".join(" ".join(f"{';'.join(l['indications'])}:{'true' if l['valid'] else 'false'}" for l in i.get("lanes") or [])
                    for i in step["intersections"])


def columns(answer, scenario):
    """The checked columns of an OSRM route answer, as the harness computes them."""
    if answer.get("code") != "Ok" or not answer.get("routes"):
        return {c: "" for c in CHECKED}
    steps = [s for leg in answer["routes"][0]["legs"] for s in leg["steps"]]
    # A maneuver is at a drawn node when within a quarter of a grid cell of it (in degrees, as the harness has it).
    tolerance = 0.25 * scenario.grid * 8.99e-6

    def at(location):
        for name, (lon, lat) in sorted(scenario.points.items()):
            if name.isalpha() and abs(lon - location[0]) <= tolerance and abs(lat - location[1]) <= tolerance:
                return name
        return "_"
    return {"route": ",".join(s.get("name", "") for s in steps), "turns": ",".join(turn_text(s) for s in steps),
            "lanes": ",".join(lanes_text(s) for s in steps),
            "locations": ",".join(at(s["maneuver"]["location"]) for s in steps)}


PROFILES = {"car": "driving", "foot": "walking"}


def run_scenario(scenario, wayfinder, work, compat):
    """Each checked row as (expected, actual, waypoints) for the columns `route` and `turns`."""
    if scenario.profile not in PROFILES:
        raise Unsupported(f"profile {scenario.profile!r}")
    os.makedirs(work, exist_ok=True)
    osm = os.path.join(work, "map.osm")
    with open(osm, "w") as f:
        f.write(scenario.xml())
    graph = os.path.join(work, "graph")
    shutil.rmtree(graph, ignore_errors=True)
    done = subprocess.run([wayfinder, "import", osm, "--output", graph, "--quiet"], capture_output=True, text=True)
    if done.returncode != 0:
        raise Unsupported(f"import failed: {done.stderr.strip()[:200]}")
    results = []
    for table in scenario.checks:
        for row in table:
            checked = [c for c in CHECKED if c in row]
            if not checked:
                continue
            if "from" in row and "to" in row:
                names = [row["from"], row["to"]]
            else:
                names = [w.strip() for w in row.get("waypoints", "").split(",") if w.strip()]
            if len(names) < 2 or any(n not in scenario.points for n in names):
                raise Unsupported(f"waypoints {names}")
            points = [f"{scenario.points[n][1]:.8f},{scenario.points[n][0]:.8f}" for n in names]
            args = [wayfinder, "route", "--graph", graph, "--mode", PROFILES[scenario.profile], "--format", "json"]
            if compat == "osrm":
                args += ["--compat", "osrm"]
            done = subprocess.run(args + points, capture_output=True, text=True)
            try:
                answer = json.loads(done.stdout)
            except ValueError:
                answer = {"code": "Error"}
            actual = columns(answer, scenario)
            expected = {c: row[c] for c in checked}
            results.append((expected, {c: actual[c] for c in checked}, ",".join(names)))
    return results


def read_features(repo, ref, folder):
    """(file name, text) of each feature file under `folder` at `ref` of an OSRM checkout or bare mirror."""
    listing = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", ref, folder], capture_output=True, text=True)
    if listing.returncode != 0:
        raise SystemExit(f"guidance_scenarios: cannot read {folder} at {ref} in {repo}: {listing.stderr.strip()}")
    files = [p for p in listing.stdout.split() if p.endswith(".feature")]
    return [(p, subprocess.run(["git", "-C", repo, "show", f"{ref}:{p}"], capture_output=True, text=True).stdout)
            for p in sorted(files)]


def todo_scenarios(text):
    """Names of scenarios tagged @todo (the harness leaves them out)."""
    names, tagged = set(), False
    for line in text.split("\n"):
        s = line.strip()
        if s.startswith("@"):
            tagged = tagged or "@todo" in s.split()
        elif s.startswith("Scenario"):
            if tagged:
                names.add(s.split(":", 1)[1].strip())
            tagged = False
        elif s and not s.startswith("#"):
            tagged = False
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--osrm-repo", required=True, help="an OSRM checkout or bare mirror (git)")
    ap.add_argument("--ref", default="HEAD")
    ap.add_argument("--features", default="features/guidance")
    ap.add_argument("--only", help="only feature files whose name contains this")
    ap.add_argument("--wayfinder", default=os.path.join(os.path.dirname(__file__), "..", ".build", "release", "wayfinder"))
    ap.add_argument("--compat", choices=("osrm", "wayfinder"), default="osrm")
    ap.add_argument("--show", type=int, default=0, metavar="N", help="rows that differ, listed")
    ap.add_argument("--json", metavar="OUT")
    a = ap.parse_args()
    if not os.access(a.wayfinder, os.X_OK):
        print(f"guidance_scenarios: no wayfinder binary at {a.wayfinder} (swift build -c release)", file=sys.stderr)
        return 2
    work = tempfile.mkdtemp(prefix="wf-scenarios-")
    per_file, skipped, differing = collections.OrderedDict(), collections.Counter(), []
    column_rows = collections.Counter()
    try:
        for path, text in read_features(a.osrm_repo, a.ref, a.features):
            if a.only and a.only not in path:
                continue
            background, scenarios = parse_feature(text)
            todo = todo_scenarios(text)
            counts = per_file.setdefault(os.path.basename(path), [0, 0, 0])  # rows passed, rows run, scenarios skipped
            for sc in scenarios:
                if sc["name"] in todo:
                    continue
                scenario = Scenario(sc["name"])
                try:
                    if sc["outline"]:
                        raise Unsupported("scenario outline")
                    for step, doc, table in background + sc["steps"]:
                        scenario.apply(step, doc, table)
                    rows = run_scenario(scenario, a.wayfinder, work, a.compat)
                except Unsupported as e:
                    counts[2] += 1
                    skipped[str(e).split(":")[0][:60]] += 1
                    continue
                for expected, actual, waypoints in rows:
                    counts[1] += 1
                    for c in expected:
                        column_rows[c] += 1
                    if expected == actual:
                        counts[0] += 1
                    else:
                        differing.append((os.path.basename(path), sc["name"], waypoints, expected, actual))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    passed = sum(c[0] for c in per_file.values())
    run = sum(c[1] for c in per_file.values())
    print(f"OSRM guidance scenarios ({a.features} at {a.ref}), Wayfinder {'--compat osrm' if a.compat == 'osrm' else '(its own rules)'}")
    print(f"  rows as OSRM's tests expect them (route, turns, lanes, locations, those given): {passed} / {run}"
          + (f" ({100 * passed / run:.1f} %)" if run else ""))
    for c in CHECKED:
        given = [(e, g) for _, _, _, e, g in differing if c in e]
        wrong = sum(1 for e, g in given if e[c] != g[c])
        print(f"    {c:10s} differs in {wrong} of the {column_rows[c]} rows that give it")
    print(f"  scenarios not run: {sum(c[2] for c in per_file.values())}")
    for reason, n in skipped.most_common():
        print(f"    {n:4d}  {reason}")
    print("  per file: rows passed / run (scenarios not run)")
    for name, (p, r, s) in per_file.items():
        print(f"    {name:45s} {p:4d} / {r:4d}" + (f"  ({s})" if s else ""))
    for f, name, waypoints, expected, actual in differing[:a.show]:
        print(f"\n  {f}: {name} [{waypoints}]")
        for c in expected:
            if expected[c] != actual[c]:
                print(f"    {c}: expected {expected[c]}\n    {' ' * len(c)}  got      {actual[c]}")
    if a.json:
        with open(a.json, "w") as out:
            json.dump({"passed": passed, "run": run, "per_file": per_file, "skipped": skipped,
                       "differing": differing}, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
