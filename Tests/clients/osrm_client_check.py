#!/usr/bin/env python3
"""A real OSRM client against a running Wayfinder: routingpy's OSRM client plus the polyline package.

Usage: osrm_client_check.py BASE_URL  (exit 0 when every check passes; prints one line per check)
"""
import math
import sys

import polyline
from routingpy import OSRM


def haversine(a, b):
    lat1, lon1, lat2, lon2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 6371008.8 * math.asin(math.sqrt(h))


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        check.failed = True


check.failed = False
client = OSRM(base_url=sys.argv[1])
start, end = [24.9384, 60.1699], [24.9412, 60.1756]  # lon, lat as routingpy passes them

for profile in ("driving", "foot"):
    route = client.directions(locations=[start, end], profile=profile, overview="full", geometries="polyline")
    check(route.distance > 300 and route.duration > 0, f"{profile}: route of {route.distance} m, {route.duration} s")
    line = route.geometry  # routingpy decodes to [lon, lat] pairs
    check(len(line) >= 2, f"{profile}: geometry has {len(line)} points")
    length = sum(haversine((a[1], a[0]), (b[1], b[0])) for a, b in zip(line, line[1:]))
    check(abs(length - route.distance) < max(5, 0.01 * route.distance),
          f"{profile}: decoded geometry length {length:.1f} m matches distance {route.distance} m")
    check(haversine((line[0][1], line[0][0]), (start[1], start[0])) < 60, f"{profile}: line starts near the start")

    raw = client.directions(locations=[start, end], profile=profile, overview="full", geometries="polyline6",
                            steps=True, dry_run=False).raw
    decoded = polyline.decode(raw["routes"][0]["geometry"], 6)
    check(len(decoded) == len(line), f"{profile}: polyline6 decodes to the same {len(line)} points")
    steps = raw["routes"][0]["legs"][0]["steps"]
    check(steps[0]["maneuver"]["type"] == "depart" and steps[-1]["maneuver"]["type"] == "arrive",
          f"{profile}: {len(steps)} steps from depart to arrive")

    matrix = client.matrix(locations=[start, end, [24.9450, 60.1720]], profile=profile, annotations=["duration", "distance"])
    check(len(matrix.durations) == 3 and all(len(row) == 3 for row in matrix.durations), f"{profile}: 3x3 table")
    check(all(matrix.durations[i][i] == 0 for i in range(3)), f"{profile}: zero diagonal")
    exact = raw["routes"][0]  # routingpy rounds its Direction to whole units; compare with the raw answer
    check(abs(matrix.durations[0][1] - exact["duration"]) < 0.11 and abs(matrix.distances[0][1] - exact["distance"]) < 0.11,
          f"{profile}: table cell equals the route ({matrix.durations[0][1]} s, {matrix.distances[0][1]} m)")

sys.exit(1 if check.failed else 0)
