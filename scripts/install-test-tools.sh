#!/usr/bin/env bash
# Optional tools some tests use, which skip with a message without them: a headless browser for the map page
# check, and the PyPI OSRM client (routingpy) with the polyline package for the real-client check.
set -euo pipefail
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
if ! command -v chromium >/dev/null; then
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium
fi
python3 -c "import routingpy, polyline" 2>/dev/null || python3 -m pip install -q routingpy polyline
