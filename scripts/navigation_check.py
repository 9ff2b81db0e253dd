#!/usr/bin/env python3
"""Checks a running Wayfinder server's voice and banner instructions (issue 30): the JSON of random routes against
scripts/schemas/navigation-v5.schema.json, and their timing on simulated drives.

    scripts/navigation_check.py --base http://127.0.0.1:5000 --bbox W,S,E,N [--pairs 100] [--seed 1]
        [--modes driving,walking] [--languages en,zh] [--units metric] [--json OUT] [--timing R]

Each route is asked for with steps, voice and banner instructions and per-segment durations. A simulated drive
follows it at the roads' speeds (the durations of its segments), one fix a second with 5 m of drifting GPS error
along the road,
and fires each instruction as Mapbox clients do: when the distance left to its step's end falls to its
distanceAlongGeometry (of several due at once, the nearest). It counts:
- maneuvers whose last announcement fired less than 3 s or more than 15 s before the driver reached them, or none
  (those reached on foot at the end of a drive, "park here and walk", apart: they are timed as a walk);
- announcements fired while the one before is still being said (15 letters or 4.5 Chinese characters a second);
- banners shown before their step starts, naming another maneuver than the next step's, or missing.
With --timing R it measures instead what the instructions cost: each pair's route with steps and the full line,
then the same with voice, with banners, and with both, R rounds after a warm-up, alternating on one keep-alive
connection, and prints the median latency of each and its ratio to the first.

Prints a summary (and writes it with --json); exits 1 on a schema error, a banner problem or a maneuver never
announced, 2 when no route could be checked. The timing counts are for the caller to judge.
"""
import argparse
import http.client
import json
import random
import re
import statistics
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

SCHEMA = Path(__file__).resolve().parent / "schemas" / "navigation-v5.schema.json"
PHRASES = Path(__file__).resolve().parent.parent / "Sources" / "Guidance" / "Phrases"
BOOKS = [json.loads(f.read_text()) for f in sorted(PHRASES.glob("*.json"))]
# A chain says its later maneuvers without the lane advice ("Get in {lanes} and {instruction}"; the banner shows
# it), and without a closing "…, still on {way_name}" where it named the road already.
SHORTER = [re.compile("^" + re.escape(book["lanes"]["use"]).replace(re.escape("{lanes}"), ".+?")
                      .replace(re.escape("{instruction}"), "(.+)") + "$") for book in BOOKS] + \
          [re.compile("^(.+)" + re.escape(book["voice"]["still on"]).replace(re.escape("{way_name}"), ".+") + "$")
           for book in BOOKS]


def said_forms(instruction):
    """The ways an announcement may say a maneuver: its instruction, after ", then" in small letters, and in a chain
    shortened."""
    forms = {instruction}
    for pattern in SHORTER:
        forms |= {match.group(1) for match in map(pattern.match, list(forms)) if match}
    return forms | {f[:1].lower() + f[1:] for f in forms} | {f[:1].upper() + f[1:] for f in forms}


def speaking_time(text):
    wide = sum(1 for ch in text if ord(ch) >= 0x2E80)
    return (len(text) - wide) / 15 + wide / 4.5


def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return json.load(response)
    except urllib.error.HTTPError as error:
        return json.load(error)


class Drive:
    """A leg driven at its segments' speeds: distance along the leg ↔ time."""

    def __init__(self, leg):
        annotation = leg["annotation"]
        self.cum_d, self.cum_t = [0.0], [0.0]
        for d, t in zip(annotation["distance"], annotation["duration"]):
            self.cum_d.append(self.cum_d[-1] + d)
            self.cum_t.append(self.cum_t[-1] + max(t, 0.0))
        self.length, self.total = self.cum_d[-1], self.cum_t[-1]

    def time_at(self, s):
        return interpolate(s, self.cum_d, self.cum_t)

    def distance_at(self, t):
        return interpolate(t, self.cum_t, self.cum_d)


def interpolate(x, xs, ys):
    """y at x on the piecewise-linear line through (xs, ys), xs ascending."""
    x = min(max(x, xs[0]), xs[-1])
    lo, hi = 0, len(xs) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if xs[mid] <= x:
            lo = mid
        else:
            hi = mid
    span = xs[hi] - xs[lo]
    share = (x - xs[lo]) / span if span > 0 else 0.0
    return ys[lo] + share * (ys[hi] - ys[lo])


def simulate(leg, rng, noise=5.0):
    """Fires the leg's voice instructions on a 1 Hz drive. Returns per maneuver (step index ≥ 1) the lead of the
    last announcement that said it (one on the step before, or one that names its instruction) and the step that
    carried that, and when the driver reached it (seconds from the start), and the fired announcements in order."""
    steps, drive = leg["steps"], Drive(leg)
    if drive.length <= 0 or drive.total <= 0:
        return {}, []
    # Steps' ends along the leg, scaled to the annotation's length (the two sum the same segments).
    total_steps = sum(s["distance"] for s in steps) or 1.0
    scale = drive.length / total_steps
    starts = [0.0]
    for s in steps:
        starts.append(starts[-1] + s["distance"] * scale)
    fired, done = [], set()
    error, t = rng.gauss(0, noise), 0.0
    while True:
        # GPS error drifts: each fix's error is mostly the last one's (0.8), with the given spread overall.
        error = 0.8 * error + rng.gauss(0, noise * 0.6)
        progress = min(drive.length, max(0.0, drive.distance_at(t) + error))
        i = max(k for k in range(len(steps)) if starts[k] <= progress + 1e-9) if progress > 0 else 0
        # The departure is said as the drive starts, as the SDKs say it, wherever the first fix falls on a short
        # first step.
        i = 0 if t == 0 else min(i, len(steps) - 1)
        remaining = (starts[i + 1] - progress) / scale
        due = [k for k, v in enumerate(steps[i].get("voiceInstructions", []))
               if (i, k) not in done and v["distanceAlongGeometry"] >= remaining - 1e-6]
        if due:
            for k in due:
                done.add((i, k))
            nearest = min(due, key=lambda k: steps[i]["voiceInstructions"][k]["distanceAlongGeometry"])
            fired.append((t, i, steps[i]["voiceInstructions"][nearest]["announcement"]))
        if t >= drive.total:
            break
        t = min(t + 1.0, drive.total)
    leads = {}
    for k in range(1, len(steps)):
        reached = drive.time_at(starts[k])
        instruction = steps[k]["maneuver"]["instruction"]
        # Said on the step before, or with an earlier maneuver ("…, then …") on one of the steps before that names
        # its instruction; an arrival said with the maneuver before on the nearest step with words. "Then …" names
        # the maneuver after the next: it is not the next one's.
        def own(f):
            return f[1] == k - 1 and not f[2].startswith(("Then ", "然后"))
        def names(f):
            # "Then …" on a step says the maneuver after the next one, or where the words moved onto the next step
            # (its start too near), the next one.
            # The maneuvers merged after it follow it in order.
            if f[2].startswith(("Then ", "然后")):
                parts = said_parts(f[2])
                def is_said(m, part):
                    words = steps[m]["maneuver"]["instruction"] if m < len(steps) else None
                    return words is not None and part in said_forms(words)
                first = f[1] + 2 if is_said(f[1] + 2, parts[0]) else f[1] + 1
                return first <= k <= first + len(parts) and any(is_said(k, part) for part in parts)
            forms = said_forms(instruction)
            return k - 4 <= f[1] < k and any(p in forms for p in said_parts(f[2]))
        carrier = next((c for c in range(k - 1, max(-1, k - 5), -1) if steps[c].get("voiceInstructions")), None)
        said = [f for f in fired if own(f) or names(f) or (steps[k]["maneuver"]["type"] == "arrive" and f[1] == carrier)]
        leads[k] = (reached - said[-1][0] if said else None, said[-1][1] if said else None, reached)
    return leads, fired


def said_parts(text):
    """The maneuvers an announcement says, each as its instruction reads ("A, then b" → "A", "b"; "Then b" → "b"):
    a maneuver's words as a substring of another's ("turn left" in "turn left into …") are not its own."""
    parts = re.split(r", then |，然后", text)
    return [p[5:] if p.startswith("Then ") else p[2:] if p.startswith("然后") else p for p in parts]


def check_banners(steps):
    problems = []
    for i, step in enumerate(steps):
        banners = step.get("bannerInstructions")
        if banners is None:
            problems.append(f"step {i}: no bannerInstructions")
            continue
        if i == len(steps) - 1:
            if banners:
                problems.append("the arrive step has banners")
            continue
        if not banners:
            problems.append(f"step {i}: no banner")
        following = steps[i + 1]["maneuver"]
        for b in banners:
            if b["distanceAlongGeometry"] > step["distance"] + 0.05:
                problems.append(f"step {i}: banner at {b['distanceAlongGeometry']} on a {step['distance']} m step")
            if b["primary"].get("type") != following["type"] or b["primary"].get("modifier") != following.get("modifier"):
                problems.append(f"step {i}: banner {b['primary'].get('type')} {b['primary'].get('modifier')} for "
                                f"{following['type']} {following.get('modifier')}")
    return problems


def timing(base, mode, pairs, rounds):
    url = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(url.hostname, url.port)
    base_query = "?steps=true&overview=full"
    variants = {"steps": "", "voice": "&voice_instructions=true", "banners": "&banner_instructions=true",
                "voice and banners": "&voice_instructions=true&banner_instructions=true"}
    times = {name: [] for name in variants}
    for round_ in range(rounds + 1):
        order = list(variants.items())
        if round_ % 2:
            order.reverse()
        for a, b in pairs:
            for name, extra in order:
                path = f"/route/v1/{mode}/{a[0]:.6f},{a[1]:.6f};{b[0]:.6f},{b[1]:.6f}{base_query}{extra}"
                started = time.perf_counter()
                connection.request("GET", path)
                response = connection.getresponse()
                response.read()
                if round_ > 0 and response.status == 200:
                    times[name].append((time.perf_counter() - started) * 1000)
    medians = {name: statistics.median(values) for name, values in times.items() if values}
    for name, value in medians.items():
        print(f"{mode} {name}: median {value:.3f} ms, ×{value / medians['steps']:.2f} ({len(times[name])} requests)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", required=True)
    parser.add_argument("--bbox", required=True, help="W,S,E,N to draw the random pairs from")
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--modes", default="driving,walking")
    parser.add_argument("--languages", default="en,zh")
    parser.add_argument("--units", default="metric")
    parser.add_argument("--json", help="write the summary here too")
    parser.add_argument("--timing", type=int, metavar="R", help="measure the cost over R rounds instead")
    args = parser.parse_args()
    if args.timing:
        w, s, e, n = map(float, args.bbox.split(","))
        for mode in args.modes.split(","):
            rng = random.Random(f"{args.seed}-{mode}")
            pairs = [((rng.uniform(w, e), rng.uniform(s, n)), (rng.uniform(w, e), rng.uniform(s, n))) for _ in range(args.pairs)]
            timing(args.base, mode, pairs, args.timing)
        return

    import jsonschema
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))
    w, s, e, n = map(float, args.bbox.split(","))
    summary = {"runs": []}
    failed = False
    for mode in args.modes.split(","):
        for language in args.languages.split(","):
            rng = random.Random(f"{args.seed}-{mode}")
            drive_rng = random.Random(f"{args.seed}-{mode}-{language}-drive")
            run = {"mode": mode, "language": language, "routes": 0, "no_route": 0, "schema_errors": 0, "maneuvers": 0,
                   "unannounced": 0, "ring_exits_said_on_entry": 0, "said_at_departure": 0, "outside_3_15s": 0, "overlaps": 0, "banner_problems": 0, "announcements": 0,
                   "walked_in_drive": 0, "walked_outside_3_15s": 0,
                   "examples": []}
            leads = []
            for _ in range(args.pairs):
                a = (rng.uniform(w, e), rng.uniform(s, n))
                b = (rng.uniform(w, e), rng.uniform(s, n))
                url = (f"{args.base}/route/v1/{mode}/{a[0]:.6f},{a[1]:.6f};{b[0]:.6f},{b[1]:.6f}?steps=true&overview=false"
                       f"&voice_instructions=true&banner_instructions=true&voice_units={args.units}"
                       f"&annotations=duration,distance&language={language}")
                answer = fetch(url)
                if answer.get("code") != "Ok":
                    run["no_route"] += 1
                    continue
                run["routes"] += 1
                for error in validator.iter_errors(answer):
                    run["schema_errors"] += 1
                    if len(run["examples"]) < 10:
                        run["examples"].append(f"schema: {error.json_path}: {error.message[:200]}")
                route = answer["routes"][0]
                if "voiceLocale" not in route:
                    run["schema_errors"] += 1
                for leg in route["legs"]:
                    steps = leg["steps"]
                    problems = check_banners(steps)
                    run["banner_problems"] += len(problems)
                    run["examples"] += problems[: max(0, 10 - len(run["examples"]))]
                    maneuver_leads, fired = simulate(leg, drive_rng)
                    run["announcements"] += len(fired)
                    for k, (lead, carrier, reached) in maneuver_leads.items():
                        run["maneuvers"] += 1
                        # One in the first seconds of the leg is said with the departure (reached where the drive
                        # places the step's start, as its lead is measured).
                        if reached < 3:
                            run["said_at_departure"] += 1
                            continue
                        # A roundabout's exit is said with its entry ("take the 2nd exit").
                        if steps[k]["maneuver"]["type"] in ("exit roundabout", "exit rotary") and \
                                steps[k - 1]["maneuver"]["type"] in ("roundabout", "rotary"):
                            run["ring_exits_said_on_entry"] += 1
                            continue
                        if lead is None:
                            run["unannounced"] += 1
                            if len(run["examples"]) < 10:
                                run["examples"].append(f"{url}: maneuver {k} ({steps[k]['maneuver']['instruction']}) not announced")
                            continue
                        # Reached on foot, at the end of a drive (park here and walk): timed as a walk, where a
                        # fix 5 m off is 3.5 s off, and counted apart.
                        if mode != "walking" and steps[k - 1].get("mode") == "walking":
                            run["walked_in_drive"] += 1
                            run["walked_outside_3_15s"] += not 3 <= lead <= 15
                            continue
                        leads.append(lead)
                        if not 3 <= lead <= 15:
                            run["outside_3_15s"] += 1
                            if len(run["examples"]) < 10:
                                run["examples"].append(f"{url}: maneuver {k} announced {lead:.1f} s ahead")
                    for (t0, _, text0), (t1, _, text1) in zip(fired, fired[1:]):
                        if t0 + speaking_time(text0) > t1 + 1e-9:
                            run["overlaps"] += 1
                            if len(run["examples"]) < 10:
                                run["examples"].append(f"{url}: '{text0}' at {t0:.0f} s runs into '{text1}' at {t1:.0f} s")
            if leads:
                ordered = sorted(leads)
                run["lead_s"] = {"min": round(ordered[0], 1), "p5": round(ordered[len(ordered) // 20], 1),
                                 "median": round(statistics.median(ordered), 1),
                                 "p95": round(ordered[min(len(ordered) - 1, len(ordered) * 19 // 20)], 1),
                                 "max": round(ordered[-1], 1)}
            if run["routes"] == 0:
                failed = failed or None
            elif run["schema_errors"] or run["unannounced"] or run["banner_problems"]:
                failed = True
            summary["runs"].append(run)
            print(f"{mode} {language}: {run['routes']} routes, {run['maneuvers']} maneuvers, "
                  f"{run['announcements']} announcements; schema errors {run['schema_errors']}, unannounced "
                  f"{run['unannounced']}, outside 3-15 s {run['outside_3_15s']}, overlaps {run['overlaps']}, "
                  + (f"walked at a drive's end {run['walked_in_drive']} ({run['walked_outside_3_15s']} outside 3-15 s), "
                     if run["walked_in_drive"] else "") +
                  f"banner problems {run['banner_problems']}; lead {run.get('lead_s')}")
            for example in run["examples"]:
                print("    " + example)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, ensure_ascii=False, indent=1))
    if failed is None or all(r["routes"] == 0 for r in summary["runs"]):
        sys.exit(2)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
