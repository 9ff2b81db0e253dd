#!/usr/bin/env bash
# Regenerates the C++ for proto/wayfinder.proto with Debian's protoc (protobuf-compiler 3.21.x, matching
# libprotobuf-dev). Run after editing the .proto; the generated files are committed.
set -euo pipefail
cd "$(dirname "$0")/.."
out=Sources/WayfinderProto/generated
protoc --proto_path=proto --cpp_out="$out" proto/wayfinder.proto
echo "generated $out/wayfinder.pb.h and $out/wayfinder.pb.cc with $(protoc --version)"
