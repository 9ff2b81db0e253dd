#!/usr/bin/env bash
# Builds the libFuzzer targets (Sources/FuzzTargets) with coverage and AddressSanitizer, then runs each for
# SECONDS (default 30) from the seed corpus in Tests/fuzz-corpus. Exits non-zero if any target crashes, leaks or
# hangs; the input that did it is kept in .build/fuzz/artifacts.
#
#   scripts/fuzz.sh [SECONDS] [TARGET…]       targets: url body polyline point query graph osmxml gpx progress traffic conditions
#   FUZZ_RUNS=10000000 scripts/fuzz.sh 0 url   a fixed number of executions instead of a time
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(url body polyline point query graph osmxml gpx progress traffic conditions)

resources=$(dirname "$(readlink -f "$(command -v swiftc)")")/../lib/clang
fuzzer=$(find "$resources" -name 'libclang_rt.fuzzer_no_main-x86_64.a' | head -n 1)
[ -n "$fuzzer" ] || { echo "fuzz.sh: libFuzzer (libclang_rt.fuzzer_no_main) not found in the Swift toolchain" >&2; exit 1; }
build=.build/fuzz
swift build -c release --product wayfinder-fuzz --build-path "$build" \
    -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table \
    -Xswiftc -DFUZZING -Xlinker "$fuzzer" -Xlinker -lstdc++ 2>&1 | grep -E "error|warning: unre|Compiling|Build" | tail -n 3
binary=$build/release/wayfinder-fuzz

# The graph target starts from a real (small) graph file: the seed map imported, with a flag byte in front
# (0: mutated as is, 1: resealed after mutation).
seeds=$build/seeds
rm -rf "$seeds" && mkdir -p "$seeds/graph"
.build/release/wayfinder import Tests/fuzz-corpus/osmxml/tiny.osm --output "$seeds/tiny" --quiet --no-contraction --time-zone Europe/Helsinki
.build/release/wayfinder import Tests/fuzz-corpus/osmxml/tiny.osm --output "$seeds/tiny-ch" --quiet
# And customized with a week of historical speeds, one road slower on weekday mornings and one faster at weekends
# (so the week's bounds are written too).
.build/release/wayfinder import Tests/fuzz-corpus/osmxml/tiny.osm --output "$seeds/tiny-week" --quiet
printf '1,2,10,Mo-Fr 07:00-09:00\n3,4,90,Sa,Su\n' > "$seeds/week.csv"
.build/release/wayfinder customize --graph "$seeds/tiny-week" --historical-speeds "$seeds/week.csv" --quiet
for flag in 0 1; do
    for graph in tiny tiny-ch tiny-week; do
        { printf "\\x0$flag"; cat "$seeds/$graph/current/driving.wfgraph"; } > "$seeds/graph/$graph-$flag"
    done
done
# Inputs that once crashed or hung the graph target, kept as seeds (format-dependent: a new format refuses them).
cp Tests/fuzz-corpus/graph/* "$seeds/graph/" 2>/dev/null || true

mkdir -p "$build/artifacts"
failed=0
for target in "${targets[@]}"; do
    corpus=$build/corpus/$target
    mkdir -p "$corpus"
    seed=Tests/fuzz-corpus/$target
    [ "$target" = graph ] && seed=$seeds/graph
    limit=(-max_total_time="$seconds")
    [ -n "${FUZZ_RUNS:-}" ] && limit=(-runs="$FUZZ_RUNS")
    echo "== $target"
    if ! ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-suppressions.txt print_suppressions=0" "$binary" "$target" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 \
            -max_len=65536 -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-" "$corpus" "$seed" \
            > "$build/$target.log" 2>&1; then
        failed=1
        # The cause and the crashing frames first: the report's tail is mostly ASan's shadow map.
        grep -E "runtime failure|ERROR: AddressSanitizer|ERROR: libFuzzer|^ +[0-9]+ .* at /" "$build/$target.log" | head -n 16 || true
        tail -n 12 "$build/$target.log"
    fi
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^Done" "$build/$target.log" | tr '\n' ' '
    echo
done
[ $failed -eq 0 ] && echo "fuzz: no crashes" || { echo "fuzz: crashes found (inputs in $build/artifacts)" >&2; exit 1; }
