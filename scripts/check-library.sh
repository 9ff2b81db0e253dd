#!/usr/bin/env bash
# The Swift library as another package uses it (CI runs this):
#  - builds Examples/RouteBetweenNames, which depends on the WayfinderEngine product only, in a build directory of
#    its own, and checks that its binary links none of the importer's libraries (zlib, bzip2, expat; libosmium is
#    header-only) nor the server's (libmicrohttpd), nor GMP;
#  - routes between two names with it on the bundled sample;
#  - fails on a public symbol of WayfinderEngine written without a documentation comment;
#  - builds the DocC catalog (Sources/WayfinderEngine/WayfinderEngine.docc) into .build/library-check/docs.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$root/.build/library-check
rm -rf "$work"
mkdir -p "$work/symbols" "$work/engine-symbols"

swift build --package-path Examples/RouteBetweenNames --scratch-path "$work/build" \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$work/symbols" >&2
binary=$(swift build --package-path Examples/RouteBetweenNames --scratch-path "$work/build" --show-bin-path)/RouteBetweenNames

needed=$(readelf -d "$binary" | awk '/NEEDED/ { gsub(/[][]/, "", $5); print $5 }')
for library in libmicrohttpd libz.so libbz2 libexpat libosmium libgmp; do
    if grep -q "^$library" <<< "$needed"; then
        echo "check-library: the example links $library, which only the importer, the server or the CLI may" >&2
        exit 1
    fi
done
echo "the example links: $(tr '\n' ' ' <<< "$needed")"

graph=$work/helsinki
"$root/.build/release/wayfinder" import graphs/helsinki.osm.pbf --output "$graph" --quiet --modes walking
answer=$("$binary" "$graph" Kamppi Senaatintori walking)
grep -q " km, " <<< "$answer" || { echo "check-library: the example gave no route: $answer" >&2; exit 1; }
echo "the example routes: $(head -1 <<< "$answer")"

python3 - "$work/symbols/WayfinderEngine.symbols.json" <<'EOF'
import json, sys
graph = json.load(open(sys.argv[1]))
# Declared in the source (the compiler's own, such as init(rawValue:), have no location) and public.
undocumented = ['.'.join(s['pathComponents']) for s in graph['symbols']
                if s.get('accessLevel') == 'public' and s.get('location') and not s.get('docComment')]
if undocumented:
    sys.exit('check-library: public symbols without a documentation comment: ' + ', '.join(undocumented))
print(f"{sum(1 for s in graph['symbols'] if s.get('location'))} public symbols of WayfinderEngine, all documented")
EOF

cp "$work/symbols/WayfinderEngine.symbols.json" "$work/engine-symbols/"
docc convert Sources/WayfinderEngine/WayfinderEngine.docc --additional-symbol-graph-dir "$work/engine-symbols" \
    --fallback-display-name WayfinderEngine --fallback-bundle-identifier org.wayfinder.WayfinderEngine \
    --output-path "$work/docs" --warnings-as-errors >&2
echo "documentation: $work/docs"
