#!/usr/bin/env bash
# From a fresh checkout: install packages, build in release mode, import the bundled Helsinki sample and route.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-dependencies.sh
swift build -c release
bin=.build/release/wayfinder
$bin import graphs/helsinki.osm.pbf --output graphs/helsinki
echo
$bin route --graph graphs/helsinki --mode driving 60.1675,24.9440 60.1756,24.9412
