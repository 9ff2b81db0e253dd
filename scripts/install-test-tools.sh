#!/usr/bin/env bash
# Optional tools some tests use, which skip with a message without them: a headless browser for the map page
# check, and the PyPI OSRM client (routingpy) with the polyline package for the real-client check.
# Failing to install them is not fatal: those checks then skip.
set -u
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
if ! command -v chromium >/dev/null; then
    { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium; } \
        || echo "could not install chromium: the browser check will skip"
fi
python3 -c "import routingpy, polyline" 2>/dev/null || python3 -m pip install -q routingpy polyline \
    || echo "could not install routingpy/polyline: the client check will skip"
exit 0
