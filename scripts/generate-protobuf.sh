#!/usr/bin/env bash
# Regenerates the C++ (and the Python the cluster package reads tables with) for proto/wayfinder.proto with
# Debian's protoc (protobuf-compiler 3.21.x, matching libprotobuf-dev). Run after editing the .proto; the generated
# files are committed.
set -euo pipefail
cd "$(dirname "$0")/.."
out=Sources/WayfinderProto/generated
protoc --proto_path=proto --cpp_out="$out" proto/wayfinder.proto
protoc --proto_path=proto --python_out=cluster/wayfinder_cluster proto/wayfinder.proto
echo "generated $out/wayfinder.pb.h, $out/wayfinder.pb.cc and cluster/wayfinder_cluster/wayfinder_pb2.py with $(protoc --version)"
