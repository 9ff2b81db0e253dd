#!/usr/bin/env python3
"""Turns an extract's turn restrictions into conditional ones, for measuring `depart_at` against OSRM.

    scripts/conditional_extract.py IN.osm.pbf OUT.osm.pbf [--condition "Mo-Fr 07:00-09:00"] [--every 1]
        [--closures N]

Every --every-th restriction relation's `restriction=X` becomes `restriction:conditional=X @ (CONDITION)`; the others
stay as they are. --closures N also gives every N-th highway way `access:conditional=no @ (CONDITION)` (Wayfinder
reads it, OSRM does not: use it for query cost, not for agreement). Inside the condition's hours the extract
routes as the original does; outside them, those turns are open. Needs osmium-tool (`apt-get install osmium-tool`).
Standard library only.
"""
import argparse
import re
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--condition", default="Mo-Fr 07:00-09:00")
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--closures", type=int, default=0, metavar="N")
    args = ap.parse_args()
    condition = args.condition.replace("&", "&amp;").replace('"', "&quot;")
    read = subprocess.Popen(["osmium", "cat", args.input, "-f", "osm", "-o", "-"], stdout=subprocess.PIPE, text=True)
    write = subprocess.Popen(["osmium", "cat", "-F", "osm", "-", "-o", args.output, "--overwrite"],
                             stdin=subprocess.PIPE, text=True)
    restriction = re.compile(r'<tag k="restriction" v="([^"]*)"/>')
    relations = converted = ways = closed = 0
    in_way = False
    for line in read.stdout:
        stripped = line.lstrip()
        if stripped.startswith("<way "):
            in_way = True
        elif stripped.startswith("</way>"):
            in_way = False
        elif in_way and args.closures and stripped.startswith('<tag k="highway"'):
            ways += 1
            if ways % args.closures == 0:
                line += f'    <tag k="access:conditional" v="no @ ({condition})"/>\n'
                closed += 1
        found = restriction.search(line)
        if found:
            relations += 1
            if relations % args.every == 0:
                line = line.replace(found.group(0),
                                    f'<tag k="restriction:conditional" v="{found.group(1)} @ ({condition})"/>')
                converted += 1
        write.stdin.write(line)
    write.stdin.close()
    if read.wait() != 0 or write.wait() != 0:
        sys.exit("osmium failed")
    print(f"{converted} of {relations} restrictions made conditional, {closed} ways closed at times: {args.output}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
