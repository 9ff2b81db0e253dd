#!/usr/bin/env bash
# Builds the Python package's wheel for this machine: python/wayfinder with libWayfinderC.so and every shared
# library it needs beyond glibc, libgcc and libstdc++ (the Swift runtime, Foundation, ICU's data, SQLite, protobuf,
# GMP, expat), each given the relative run path $ORIGIN, so the wheel installs where no Swift toolchain is.
#
#   scripts/build-wheel.sh [--skip-build] [OUTPUT_DIR]      (default .build/python/dist)
#
# Needs patchelf (Debian's package) and PyPI's wheel (python3 -m pip install wheel); install-test-tools.sh has both.
set -euo pipefail
cd "$(dirname "$0")/.."
skip_build=0
if [ "${1:-}" = "--skip-build" ]; then skip_build=1; shift; fi
out="$(realpath -m "${1:-.build/python/dist}")"
[ "$skip_build" = 1 ] || swift build -c release --product WayfinderC >&2
library=.build/release/libWayfinderC.so
[ -f "$library" ] || { echo "build-wheel: $library is missing: run swift build -c release --product WayfinderC" >&2; exit 1; }
command -v patchelf >/dev/null || { echo "build-wheel: patchelf is missing (apt-get install patchelf)" >&2; exit 1; }
python3 -c "import wheel" 2>/dev/null || { echo "build-wheel: PyPI's wheel is missing (pip install wheel)" >&2; exit 1; }

version=$(python3 -c "import re; print(re.search(r'__version__ = \"(.+)\"', open('python/wayfinder/__init__.py').read())[1])")
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
tree="$stage/wayfinder-$version"
mkdir -p "$tree/wayfinder/_lib" "$tree/wayfinder-$version.dist-info"
cp python/wayfinder/*.py "$tree/wayfinder/"
cp Sources/WayfinderC/wayfinder.h "$tree/wayfinder/_lib/"
cp "$library" "$tree/wayfinder/_lib/"

# Libraries a Debian system always has (glibc's, libgcc's, libstdc++): the rest travel in the wheel.
system='^(libc|libm|libdl|librt|libpthread|libutil|ld-linux-x86-64|libgcc_s|libstdc\+\+)\.so'
ldd "$library" | awk '/=> \// { print $1, $3 }' | while read -r name path; do
    [[ "$name" =~ $system ]] && continue
    cp -L "$path" "$tree/wayfinder/_lib/$name"
done
for lib in "$tree"/wayfinder/_lib/*.so*; do
    chmod u+w "$lib"
    patchelf --set-rpath '$ORIGIN' "$lib"
done
# Nothing may still point into the toolchain.
if readelf -d "$tree"/wayfinder/_lib/*.so* | grep -E "R(UN)?PATH" | grep -v '\[\$ORIGIN\]' >&2; then
    echo "build-wheel: a library keeps a run path outside the wheel" >&2
    exit 1
fi

tag="py3-none-linux_$(uname -m)"
cat > "$tree/wayfinder-$version.dist-info/METADATA" <<EOF
Metadata-Version: 2.1
Name: wayfinder
Version: $version
Summary: Wayfinder's routing engine in-process: OSRM-style routes, tables and nearest roads from OpenStreetMap graphs
Requires-Python: >=3.9
Requires-Dist: numpy
Requires-Dist: orjson
EOF
cat > "$tree/wayfinder-$version.dist-info/WHEEL" <<EOF
Wheel-Version: 1.0
Generator: wayfinder build-wheel.sh
Root-Is-Purelib: false
Tag: $tag
EOF
mkdir -p "$out"
# Only this wheel's own name is written (over an earlier build of it): nothing else in OUTPUT_DIR is touched.
python3 -m wheel pack "$tree" -d "$out" >&2
wheel="$out/wayfinder-$version-$tag.whl"
[ -f "$wheel" ] || { echo "build-wheel: wheel pack wrote no $wheel" >&2; exit 1; }
echo "$wheel"
