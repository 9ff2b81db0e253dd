"""Checks the installed `wayfinder` package against the CLI: run inside a fresh venv where the wheel was installed.

    check_package.py --wayfinder BIN --graph HELSINKI_GRAPH [--porto PORTO_GRAPH --points POINTS_CSV]

Prints one line per check and `OK …` last; exits 1 at the first failure. The engine must come from the wheel:
no library of the Swift toolchain may be mapped into this process.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import math
import os
import random
import subprocess
import sys

import numpy as np

import wayfinder


def fail(message: str) -> None:
    print(f"FAIL {message}")
    sys.exit(1)


def cli(binary: str, arguments: list[str]) -> tuple[int, str, str]:
    done = subprocess.run([binary] + arguments, capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout, done.stderr


def check_libraries() -> str:
    package = os.path.dirname(os.path.abspath(wayfinder.__file__))
    with open("/proc/self/maps") as maps:
        mapped = {line.split()[-1] for line in maps if "/" in line}
    swift = [path for path in mapped if "swift" in path.lower() or "Foundation" in path]
    outside = [path for path in swift if not path.startswith(package)]
    if outside or not swift:
        fail(f"the Swift runtime is not the wheel's: {sorted(outside) or 'none mapped'}")
    if "SWIFT" in os.environ.get("PATH", "").upper() or "/opt/swift" in os.environ.get("PATH", ""):
        fail("a Swift toolchain is on the PATH")
    return f"{len(swift)} runtime libraries, all from {package}"


def check_routes(engine: wayfinder.Engine, binary: str, graph: str, points: list, rng: random.Random) -> str:
    cases = 0
    requests = []
    for k in range(12):
        a, b = rng.sample(points, 2)
        mode = ["driving", "walking"][k % 2]
        language = ["en", "zh"][(k // 2) % 2]
        # Two of them with weights by kind of road, as the CLI's --avoid and --prefer give them.
        weights = {"unpaved": 3.0, "minor_roads": 1.2} if k in (0, 4) else None
        requests.append(([a, b], mode, language, weights))
    requests.append((["Kamppi", "Senaatintori"], "walking", "en", None))
    for chosen, mode, language, weights in requests:
        texts = [p if isinstance(p, str) else f"{p[0]!r},{p[1]!r}" for p in chosen]
        weighing = ["--avoid", "unpaved:3", "--prefer", "major_roads:1.2"] if weights else []
        status, out, err = cli(binary, ["route", "--graph", graph, "--format", "json", "--mode", mode,
                                        "--language", language] + weighing + texts)
        try:
            mine = engine.route(chosen, mode=mode, language=language, weights=weights)
        except wayfinder.WayfinderError as error:
            if status == 0 or error.code != json.loads(out)["code"]:
                fail(f"route {texts} {mode}: the package raised {error}, the CLI exited {status}")
            cases += 1
            continue
        if status != 0:
            fail(f"route {texts} {mode}: the CLI failed ({err.strip()}) where the package answered")
        if mine != json.loads(out):
            fail(f"route {texts} {mode} {language}: the package's JSON differs from the CLI's")
        cases += 1
    return f"{cases} routes equal the CLI's JSON"


def check_errors(engine: wayfinder.Engine, rng: random.Random) -> str:
    """Malformed arguments of every kind: each is a WayfinderError with an OSRM code, never a crash."""
    good = (60.1699, 24.9384)
    cases = [
        lambda: engine.route([]),
        lambda: engine.route([good]),
        lambda: engine.route([(91, 0), good]),
        lambda: engine.route([(float("nan"), 0), good]),
        lambda: engine.route("abc"),
        lambda: engine.route([(1, 2, 3), good]),
        lambda: engine.route([good, good], mode="boat"),
        lambda: engine.route([good, good], mode=5),
        lambda: engine.route([good, good], language=None),
        lambda: engine.route([good, good], alternatives=9),
        lambda: engine.route([good, good], avoid=["stairs"]),
        lambda: engine.route([good, good], weights={"stairs": 2}),
        lambda: engine.route([good, good], weights={"unpaved": 0.5}),
        lambda: engine.route([good, good], radius=-1),
        lambda: engine.route([good, good], units="cubits"),
        lambda: engine.route([good, "no such place anywhere"]),
        lambda: engine.route([good, "x\0y"]),
        lambda: engine.route([(0.0, 0.0), good]),
        lambda: engine.table(np.zeros((3, 3))),
        lambda: engine.table([[float("nan"), 0]]),
        lambda: engine.table([good], threads=0),
        lambda: engine.table([good], mode="cycling\0"),
        lambda: engine.table("not points"),
        lambda: engine.table([good], dtype="int8"),
        lambda: engine.table([good], out=(np.zeros((2, 2)), np.zeros((2, 2)))),
        lambda: engine.table([good], out=(np.zeros((1, 1), np.float32), np.zeros((1, 1), np.float32))),
        lambda: engine.table([good], out="two arrays"),
        lambda: engine.nearest(good, number=0),
        lambda: engine.nearest(good, number="two"),
        lambda: engine.nearest((200, 0)),
        lambda: engine.request("/nonsense"),
        lambda: engine.request("/route/v1/driving/1,2"),
        lambda: engine.request("/route/v1/driving/24.9,60.1;24.91,60.11?steps=maybe"),
        lambda: engine.request("/table/v1/driving/24.9,60.1", body={"coordinates": "x"}),
        lambda: wayfinder.Engine("/nonexistent/graph"),
        lambda: wayfinder.Engine(5),
        lambda: wayfinder.Engine(".", modes=["boat"]),
    ]
    junk = [None, True, -1, 0, 1e308, float("inf"), "", "\0", "x" * 100_000, [], [[]], {}, (1,), b"bytes",
            [[1, 2]], [(60.17, 24.94), (60.18, 24.95)], object()]
    for _ in range(300):
        method = rng.choice(["route", "table", "nearest", "request"])
        arguments = [rng.choice(junk) for _ in range(rng.randint(1, 2))]  # every method takes two
        cases.append(lambda m=method, a=arguments: getattr(engine, m)(*a))
    refused = 0
    for case in cases:
        try:
            case()
        except wayfinder.WayfinderError as error:
            if not error.code or not error.message:
                fail(f"an error without a code or message: {error!r}")
            refused += 1
        except Exception as error:  # anything but the package's own error is a bug
            fail(f"{type(error).__name__} instead of WayfinderError: {error}")
    return f"{len(cases)} malformed calls, {refused} refused with an OSRM code, none crashed"


def check_threads(engine: wayfinder.Engine, points: list, rng: random.Random) -> str:
    pairs = [rng.sample(points, 2) for _ in range(200)]

    def work(k: int):
        pair = pairs[k]
        try:
            if k % 4:
                return engine.route(pair, steps=True)
            # NaN is unequal to itself: unreachable cells compare as None.
            return [[None if math.isnan(v) else v for v in row] for row in engine.table(pair + pairs[k - 1]).durations.tolist()]
        except wayfinder.WayfinderError as error:  # some pairs are not connected: the error is the answer
            return (error.code, error.message)

    alone = [work(k) for k in range(len(pairs))]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        shared = list(pool.map(work, range(len(pairs))))
    if shared != alone:
        fail("4 threads on one engine gave other answers than one thread")
    routed = sum(1 for answer in alone if isinstance(answer, dict))
    return f"{len(pairs)} routes ({routed} found) and tables on 4 threads equal one thread's"


def check_table(binary: str, graph: str, points_csv: str) -> str:
    with open(points_csv) as f:
        points = [tuple(float(v) for v in line.split(",")[:2]) for line in f if line.strip() and (line[0].isdigit() or line[0] == "-")]
    # The CSV (the default format): the JSON writer keeps distances as 32-bit floats, as OSRM's do.
    status, out, err = cli(binary, ["matrix", "--graph", graph, "--sources", points_csv, "--format", "csv"])
    if status != 0:
        fail(f"wayfinder matrix failed: {err.strip()[-300:]}")
    expected = {"durations": np.full((len(points), len(points)), np.nan)}
    expected["distances"] = expected["durations"].copy()
    for line in out.splitlines()[1:]:
        i, j, duration, distance = line.split(",")
        if duration:
            expected["durations"][int(i), int(j)] = float(duration)
            expected["distances"][int(i), int(j)] = float(distance)
    with wayfinder.Engine(graph, modes=["driving"]) as engine:
        table = engine.table(points)
        single = engine.table(points, dtype=np.float32)
        reused = (np.zeros_like(table.durations), np.zeros_like(table.distances))
        engine.table(points, out=reused)
    for name, k in (("durations", 0), ("distances", 1)):
        if not np.array_equal(table[k].astype(np.float32), single[k], equal_nan=True):
            fail(f"the float32 table's {name} are not the float64 table's, rounded to float32")
        if not np.array_equal(table[k], reused[k], equal_nan=True):
            fail(f"the table written into arrays given with out= differs in its {name}")
    for name in ["durations", "distances"]:
        cli_cells, mine = expected[name], getattr(table, name)
        if cli_cells.shape != mine.shape or not np.array_equal(cli_cells, mine, equal_nan=True):
            differing = int((~((cli_cells == mine) | (np.isnan(cli_cells) & np.isnan(mine)))).sum())
            fail(f"the {mine.shape} table's {name} differ from wayfinder matrix in {differing} cells")
    return f"{len(points)}x{len(points)} table equals wayfinder matrix cell for cell (float32 and out= too)"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--wayfinder", required=True)
    parser.add_argument("--graph", required=True)
    parser.add_argument("--porto")
    parser.add_argument("--points")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    reports = []
    with wayfinder.Engine(args.graph) as engine:
        reports.append(check_libraries())
        print(reports[-1], flush=True)
        west, south, east, north = engine.request("/graph")["bounds"]
        points = [(rng.uniform(south, north), rng.uniform(west, east)) for _ in range(400)]
        snapped = []
        for p in points:
            try:
                answer = engine.nearest(p, mode="walking")
            except wayfinder.WayfinderError:
                continue
            lon, lat = answer["waypoints"][0]["location"]
            snapped.append((lat, lon))
        reports.append(check_routes(engine, args.wayfinder, args.graph, snapped, rng))
        print(reports[-1], flush=True)
        reports.append(check_errors(engine, rng))
        print(reports[-1], flush=True)
        reports.append(check_threads(engine, snapped, rng))
        print(reports[-1], flush=True)
    try:
        engine.route(snapped[:2])
        fail("a closed engine answered")
    except wayfinder.WayfinderError:
        pass
    if args.porto and args.points:
        reports.append(check_table(args.wayfinder, args.porto, args.points))
        print(reports[-1], flush=True)
    print("OK " + "; ".join(reports))


if __name__ == "__main__":
    main()
