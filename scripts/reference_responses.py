#!/usr/bin/env python3
"""Proof that a refactoring changed no answer: records the bodies of a fixed set of requests from a running
`wayfinder serve`, or compares them with a recording made by an earlier build. The set is 300 random pairs (Porto's
bounding box by default), driving and walking, each asked three ways: with steps and the full overview, with
neither, and in Chinese as GeoJSON with annotations. That is 1,800 requests. Standard library only.

    scripts/reference_responses.py record  DIR [--base URL] [--pairs 300] [--seed 7] [--bbox W,E,S,N]
    scripts/reference_responses.py compare DIR [--base URL]

`compare` exits 1 and names the first requests that differ, with the first differing character."""
import argparse, json, os, random, sys, time, urllib.error, urllib.request
from concurrent.futures import ThreadPoolExecutor

VARIANTS = (
    'steps=true&overview=full',
    'steps=false&overview=false',
    'steps=true&language=zh&geometries=geojson&annotations=true&continue_straight=false',
)


def fetch(url):
    for attempt in range(3):
        try:
            with urllib.request.urlopen(url, timeout=60) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()
        except OSError as e:
            error = e
            time.sleep(1)
    sys.exit(f'{url}: {error}')


def draw_requests(base, pairs, seed, bbox):
    west, east, south, north = bbox
    rng = random.Random(seed)

    def point():
        # A point with a road within 200 m, so that most requests route rather than fail alike.
        for _ in range(1000):
            lon, lat = round(rng.uniform(west, east), 6), round(rng.uniform(south, north), 6)
            status, body = fetch(f'{base}/nearest/v1/driving/{lon},{lat}')
            answer = json.loads(body)
            if status == 200 and answer.get('waypoints') and answer['waypoints'][0]['distance'] <= 200:
                return lon, lat
        sys.exit(f'no road within 200 m of 1000 random points in {bbox}: is the server serving that extract?')

    requests = []
    for mode in ('driving', 'walking'):
        for _ in range(pairs):
            (x1, y1), (x2, y2) = point(), point()
            for variant in VARIANTS:
                requests.append(f'/route/v1/{mode}/{x1},{y1};{x2},{y2}?{variant}')
    return requests


def bodies(base, requests, workers=4):
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda path: fetch(base + path), requests))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('action', choices=('record', 'compare'))
    ap.add_argument('directory')
    ap.add_argument('--base', default='http://127.0.0.1:5801')
    ap.add_argument('--pairs', type=int, default=300)
    ap.add_argument('--seed', type=int, default=7)
    ap.add_argument('--bbox', default='-8.70,-8.55,41.10,41.25', help='west,east,south,north')
    a = ap.parse_args()
    index = os.path.join(a.directory, 'requests.json')
    if a.action == 'record':
        bbox = tuple(float(x) for x in a.bbox.split(','))
        if len(bbox) != 4 or not (bbox[0] < bbox[1] and bbox[2] < bbox[3]):
            sys.exit(f'--bbox {a.bbox}: give west,east,south,north with west < east and south < north')
        requests = draw_requests(a.base, a.pairs, a.seed, bbox)
        answers = bodies(a.base, requests)
        os.makedirs(a.directory, exist_ok=True)
        with open(index, 'w') as f:
            json.dump(requests, f)
        with open(os.path.join(a.directory, 'bodies.json'), 'w') as f:
            json.dump([[status, body.decode('utf-8', 'replace')] for status, body in answers], f)
        routed = sum(1 for status, _ in answers if status == 200)
        print(f'recorded {len(requests)} requests ({routed} answered 200) in {a.directory}')
        return
    with open(index) as f:
        requests = json.load(f)
    with open(os.path.join(a.directory, 'bodies.json')) as f:
        recorded = json.load(f)
    answers = bodies(a.base, requests)
    differing = []
    for path, (old_status, old_body), (status, body) in zip(requests, recorded, answers):
        body = body.decode('utf-8', 'replace')
        if (status, body) != (old_status, old_body):
            at = next((i for i, (x, y) in enumerate(zip(old_body, body)) if x != y), min(len(old_body), len(body)))
            differing.append((path, old_status, status, at, old_body[max(0, at - 60):at + 60], body[max(0, at - 60):at + 60]))
    print(f'{len(requests) - len(differing)} of {len(requests)} responses byte-identical')
    for path, old_status, status, at, old, new in differing[:5]:
        print(f'\n{path}\n  status {old_status} -> {status}, first difference at character {at}\n  was: {old}\n  now: {new}')
    sys.exit(1 if differing else 0)


if __name__ == '__main__':
    main()
