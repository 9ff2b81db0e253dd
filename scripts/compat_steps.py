#!/usr/bin/env python3
"""How often Wayfinder's own guidance and routing decisions fire: the same random pairs routed with steps, with
and without `compat=osrm`, against a running `wayfinder serve` (Porto's bounding box by default). Reports per mode
the share of routes whose steps differ, steps under 10 m, `use lane` steps, routes with a walk at the end, and
attributes each difference to a deviation of GUIDANCE.md. Standard library only.

    scripts/compat_steps.py [--base URL] [--seed N] [--pairs N] [--bbox W,E,S,N] [--out RAW.json]"""
import argparse, collections, difflib, json, random, re, sys, time, unicodedata, urllib.error, urllib.request
from concurrent.futures import ThreadPoolExecutor

ap = argparse.ArgumentParser()
ap.add_argument('--base', default='http://127.0.0.1:5801')
ap.add_argument('--seed', type=int, default=20240601)
ap.add_argument('--pairs', type=int, default=300)
ap.add_argument('--workers', type=int, default=4)
ap.add_argument('--out', help='every pair, both answers, as JSON')
ap.add_argument('--bbox', default='-8.70,-8.55,41.10,41.25', help='west,east,south,north')
a = ap.parse_args()
BBOX = tuple(float(x) for x in a.bbox.split(','))

def get(url):
    for attempt in range(3):
        try:
            with urllib.request.urlopen(url, timeout=60) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:
            try: return json.loads(e.read())
            except Exception: return {'code': 'HTTP%d' % e.code}
        except Exception as e:
            err = str(e); time.sleep(1)
    return {'code': 'ERR', 'message': err}

rng = random.Random(a.seed)
def draw_point():
    while True:
        lon = round(rng.uniform(BBOX[0], BBOX[1]), 6); lat = round(rng.uniform(BBOX[2], BBOX[3]), 6)
        j = get(f"{a.base}/nearest/v1/driving/{lon},{lat}")
        if j.get('code') == 'Ok' and j['waypoints'] and j['waypoints'][0]['distance'] <= 200:
            return (lon, lat)
        draw_point.rejected += 1
draw_point.rejected = 0

pairs = {m: [(draw_point(), draw_point()) for _ in range(a.pairs)] for m in ('driving', 'walking')}

def route(mode, p, compat):
    (x1, y1), (x2, y2) = p
    u = f"{a.base}/route/v1/{mode}/{x1},{y1};{x2},{y2}?steps=true&overview=false" + ('&compat=osrm' if compat else '')
    return get(u)

def steps(j):
    return [s for leg in j['routes'][0]['legs'] for s in leg['steps']]
def key(s):
    m = s['maneuver']; return (m.get('type'), m.get('modifier'), s.get('name', ''))

def job(args):
    mode, i, p = args
    return mode, i, p, route(mode, p, False), route(mode, p, True)

tasks = [(m, i, p) for m in pairs for i, p in enumerate(pairs[m])]
with ThreadPoolExecutor(a.workers) as ex:
    res = list(ex.map(job, tasks))

out = {'seed': a.seed, 'pairs_per_mode': a.pairs, 'nearest_rejected': draw_point.rejected, 'modes': {}}
raw = []
for mode in ('driving', 'walking'):
    R = [r for r in res if r[0] == mode]
    c = collections.Counter()
    codes = collections.Counter()
    n_steps = [0, 0]
    tc = collections.Counter()  # multiset diffs by type
    lt10 = [0, 0]
    ddur, ddist = [], []
    diff_cost = collections.Counter()
    for _, i, p, j0, j1 in R:
        codes[(j0.get('code'), j1.get('code'))] += 1
        if j0.get('code') != 'Ok' or j1.get('code') != 'Ok':
            continue
        c['answered'] += 1
        s0, s1 = steps(j0), steps(j1)
        n_steps[0] += len(s0); n_steps[1] += len(s1)
        k0, k1 = [key(s) for s in s0], [key(s) for s in s1]
        differs = k0 != k1
        c['differs'] += differs
        walk0 = any(s.get('mode') == 'walking' for s in s0)
        walk1 = any(s.get('mode') == 'walking' for s in s1)
        c['walk_nocompat'] += (mode == 'driving' and walk0)
        c['walk_compat'] += (mode == 'driving' and walk1)
        t0 = collections.Counter(s['maneuver']['type'] for s in s0)
        t1 = collections.Counter(s['maneuver']['type'] for s in s1)
        for t in set(t0) | set(t1):
            if t0[t] > t1[t]: tc[(t, 'only_without')] += t0[t] - t1[t]
            if t1[t] > t0[t]: tc[(t, 'only_with')] += t1[t] - t0[t]
        # routes where a given type count differs
        for t in ('use lane', 'new name', 'continue', 'turn'):
            if t0[t] != t1[t]: c['routes_%s_count_differs' % t.replace(' ', '_')] += 1
        lt10[0] += sum(1 for s in s0 if s['distance'] < 10)
        lt10[1] += sum(1 for s in s1 if s['distance'] < 10)
        # names: same step-count/type skeleton but names differ
        if [k[:2] for k in k0] == [k[:2] for k in k1] and differs:
            c['differs_only_in_names'] += 1
        r0, r1 = j0['routes'][0], j1['routes'][0]
        dd = r0['duration'] - r1['duration']; ds = r0['distance'] - r1['distance']
        cost_diff = abs(dd) > 0.05 or abs(ds) > 0.05
        diff_cost[('rest_on_foot' if walk0 else 'other', cost_diff)] += 1
        if cost_diff:
            ddur.append(dd); ddist.append(ds)
        raw.append({'mode': mode, 'i': i, 'pair': p, 'differs': differs, 'walk0': walk0, 'walk1': walk1,
                    'dur': [r0['duration'], r1['duration']], 'dist': [r0['distance'], r1['distance']],
                    'k0': k0, 'k1': k1, 'd0': [s['distance'] for s in s0], 'd1': [s['distance'] for s in s1],
                    'm0': [s.get('mode') for s in s0],
                    'wp_dest_dist': j0['waypoints'][-1]['distance'],
                    'lanes0': sum(1 for s in s0 for x in s.get('intersections', []) if x.get('lanes')),
                    'ref_fields': sum(1 for s in s0 + s1 if 'ref' in s),
                    'ref0': [s.get('ref', '') for s in s0], 'ref1': [s.get('ref', '') for s in s1]})
    n = c['answered'] or 1
    out['modes'][mode] = {
        'requested': len(R), 'answered_both': c['answered'],
        'codes': {f'{k[0]}|{k[1]}': v for k, v in codes.items()},
        'share_step_list_differs': c['differs'] / n, 'n_differs': c['differs'],
        'differs_only_in_names': c['differs_only_in_names'],
        'avg_steps_without_compat': n_steps[0] / n, 'avg_steps_with_compat': n_steps[1] / n,
        'rest_on_foot_share_without_compat': c['walk_nocompat'] / n, 'n_rest_on_foot_without': c['walk_nocompat'],
        'rest_on_foot_share_with_compat': c['walk_compat'] / n, 'n_rest_on_foot_with': c['walk_compat'],
        'cost_differs': {f'{k[0]}|{"differs" if k[1] else "same"}': v for k, v in diff_cost.items()},
        'cost_diff_duration_s': {'n': len(ddur), 'mean': sum(ddur)/len(ddur) if ddur else 0, 'min': min(ddur, default=0), 'max': max(ddur, default=0)},
        'cost_diff_distance_m': {'n': len(ddist), 'mean': sum(ddist)/len(ddist) if ddist else 0, 'min': min(ddist, default=0), 'max': max(ddist, default=0)},
        'type_multiset_diff': {f'{k[0]}|{k[1]}': v for k, v in sorted(tc.items())},
        'steps_lt10m': {'without_compat': lt10[0], 'with_compat': lt10[1]},
        'routes_type_count_differs': {k: v for k, v in c.items() if k.startswith('routes_')},
    }
print(json.dumps(out, indent=1))

# ---------- attribution (sequence alignment of (type, modifier, name)) ----------
ABBR = {'av': 'avenida', 'r': 'rua', 'dr': 'doutor', 'eng': 'engenheiro', 'prof': 'professor', 'sta': 'santa',
        'sto': 'santo', 's': 'sao', 'pc': 'praca', 'pca': 'praca', 'tv': 'travessa', 'trav': 'travessa', 'estr': 'estrada',
        'gen': 'general', 'cap': 'capitao', 'd': 'dom'}
PART = {'de', 'do', 'da', 'dos', 'das', 'e'}
def loose(n):
    n = unicodedata.normalize('NFKD', n or '').encode('ascii', 'ignore').decode().casefold()
    w = [ABBR.get(t, t) for t in re.findall(r'[a-z0-9]+', n)]
    return ' '.join(t for t in w if t not in PART)

attr = {}
examples = []
for mode in ('driving', 'walking'):
    A = collections.Counter(); RC = collections.Counter()
    for r in (x for x in raw if x['mode'] == mode):
        k0 = [tuple(k) for k in r['k0']]; k1 = [tuple(k) for k in r['k1']]
        if k0 == k1: continue
        sm = difflib.SequenceMatcher(None, k0, k1, autojunk=False)
        only0, only1 = [], []
        rc = set()
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            if tag == 'equal': continue
            if tag == 'replace' and i2 - i1 == j2 - j1:
                for a_, b_ in zip(range(i1, i2), range(j1, j2)):
                    x, y = k0[a_], k1[b_]
                    if x[1:] == y[1:] and x[0] != y[0]:
                        A[f'replaced: type {x[0]} (without) -> {y[0]} (compat)'] += 1
                        rc.add('type change %s -> %s' % (x[0], y[0]))
                    elif x[0] == y[0] and x[1] == y[1]:
                        if loose(x[2]) != loose(y[2]): examples.append((mode, x, y))
                        A['replaced: name only ' + ('loosely equal' if loose(x[2]) == loose(y[2]) else 'different')] += 1
                    elif x[0] == y[0] and x[2] == y[2]:
                        A['replaced: modifier only'] += 1
                    else:
                        A['replaced: other'] += 1
                continue
            only0 += range(i1, i2); only1 += range(j1, j2)
            # block-level cause (first matching rule wins)
            blk0, blk1 = list(range(i1, i2)), list(range(j1, j2))
            if any(k0[i][0] == 'use lane' for i in blk0): cause = 'use lane kept (without compat)'
            elif any(r['d1'][j] < 10 and k1[j][0] != 'arrive' for j in blk1): cause = 'short step (<10 m) present with compat'
            elif any(k1[j][0] in ('exit roundabout', 'exit rotary') and j and r['d1'][j-1] < 10 for j in blk1): cause = 'short step (<10 m): roundabout/rotary entry <10 m, exit step only with compat'
            elif any(k1[j][0] in ('exit roundabout', 'exit rotary') for j in blk1): cause = 'exit roundabout/rotary step only with compat (entry >=10 m)'
            elif any(k1[j][0] == 'new name' and j and k1[j][2] == k1[j-1][2] and r['ref1'][j] != r['ref1'][j-1] for j in blk1): cause = 'new name: ref change on same named street'
            elif any(k1[j][0] == 'new name' and j and k1[j][2] == k1[j-1][2] for j in blk1): cause = 'new name: same street repeated (tidy)'
            elif any(k1[j][0] == 'new name' and j and loose(k1[j][2]) == loose(k1[j-1][2]) for j in blk1): cause = 'new name: loosely equal names (name comparison)'
            else: cause = 'other'
            A['BLOCK ' + cause] += 1; rc.add(cause)
        for c_ in rc: RC[c_] += 1
        if rc == set(): RC['1:1 name/modifier changes only'] += 1
        for i in only0:
            A[f'only without compat: {k0[i][0]}'] += 1
            if r['d0'][i] < 10: A['only without compat: <10 m'] += 1
        for j in only1:
            t, m, n = k1[j]
            A[f'only with compat: {t}'] += 1
            if r['d1'][j] < 10: A['only with compat: <10 m'] += 1
            if t == 'new name':
                prev = k1[j - 1][2] if j else None
                if n == prev and r['ref1'][j] != r['ref1'][j - 1]: A['only with compat: new name, same name, ref changes (ref change)'] += 1
                elif n == prev: A['only with compat: new name, same name and ref as previous (repeated-name tidy)'] += 1
                elif loose(n) == loose(prev): A['only with compat: new name, loosely equal to previous (name comparison)'] += 1
                else: A['only with compat: new name, different name from previous'] += 1
    out['modes'][mode]['attribution'] = dict(sorted(A.items()))
    out['modes'][mode]['routes_by_cause'] = dict(RC.most_common())
    R = [x for x in raw if x['mode'] == mode]
    out['modes'][mode]['steps_lt10m_excluding_arrive'] = {
        'without_compat': sum(1 for x in R for k, d in zip(x['k0'], x['d0']) if d < 10 and k[0] != 'arrive'),
        'with_compat': sum(1 for x in R for k, d in zip(x['k1'], x['d1']) if d < 10 and k[0] != 'arrive')}
    out['modes'][mode]['dest_snap_gt25m'] = sum(1 for x in R if x['wp_dest_dist'] > 25)
    out['modes'][mode]['intersections_with_lanes_without_compat'] = sum(x['lanes0'] for x in R)
    out['modes'][mode]['steps_with_ref_field'] = sum(x['ref_fields'] for x in R)
    # fix: rest-on-foot classification applies to driving only
    if mode == 'walking':
        out['modes'][mode]['cost_differs'] = {'differs': sum(1 for x in R if abs(x['dur'][0]-x['dur'][1]) > .05 or abs(x['dist'][0]-x['dist'][1]) > .05), 'same': sum(1 for x in R if not (abs(x['dur'][0]-x['dur'][1]) > .05 or abs(x['dist'][0]-x['dist'][1]) > .05))}
if a.out:
    json.dump({'pairs': raw, 'name_examples': examples}, open(a.out, 'w'), ensure_ascii=False)
print('### with attribution')
print(json.dumps(out, indent=1, ensure_ascii=False))
