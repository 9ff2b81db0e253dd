#!/usr/bin/env bash
# N `wayfinder serve` replicas behind nginx on loopback ports: a demo of deploy/nginx.conf.template, and what the
# failover test runs.
#
#   deploy/local-replicas.sh up --graph DIR --state DIR [--replicas 3] [--port 8080] [--threads 1] [--quiet]
#   deploy/local-replicas.sh restart-replica K --state DIR     # start replica K (1-based) again on its port
#   deploy/local-replicas.sh kill-replica K --state DIR        # kill -9 replica K (to watch nginx route around it)
#   deploy/local-replicas.sh down --state DIR
#
# Replicas listen on free ports chosen by the system; their logs are <state>/replica-K.log. nginx listens on
# 127.0.0.1:--port. Needs nginx (Debian: apt-get install nginx) and a release build (or WAYFINDER=path).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
wayfinder="${WAYFINDER:-$here/../.build/release/wayfinder}"
nginx="${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}"

die() { echo "local-replicas: $*" >&2; exit 1; }

command="${1:-}"; shift || true
graph="" state="" replicas=3 port=8080 threads=1 quiet="" replica=""
if [[ "$command" == restart-replica || "$command" == kill-replica ]]; then replica="${1:-}"; shift || true; fi
while [[ $# -gt 0 ]]; do
    case "$1" in
        --graph) graph="$2"; shift 2 ;;
        --state) state="$2"; shift 2 ;;
        --replicas) replicas="$2"; shift 2 ;;
        --port) port="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --quiet) quiet="--quiet"; shift ;;
        *) die "unknown argument $1" ;;
    esac
done
[[ -n "$state" ]] || die "--state DIR is required"

# GET path on a loopback port with bash alone; prints the status code (000 when nothing answers).
status_of() {
    local port="$1" path="$2" line
    if { exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null; then
        printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$path" >&3
        read -r -t 5 line <&3 || line=""
        exec 3>&- 3<&-
        echo "$line" | awk '{print ($2 == "" ? "000" : $2)}'
    else
        echo 000
    fi
}

# Whether a process runs (a killed one whose parent is gone may linger as a zombie where nothing reaps it).
alive() {
    [[ -r "/proc/$1/stat" ]] && [[ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]]
}

# Waits up to 60 s for a port to answer /health with 200.
wait_healthy() {
    local port="$1" what="$2"
    for _ in $(seq 1 600); do
        [[ "$(status_of "$port" /health)" == 200 ]] && return 0
        sleep 0.1
    done
    die "$what on port $port did not become healthy"
}

# Starts replica K: on its recorded port if it had one, else on a free port; records "port pid" in the state dir.
start_replica() {
    local k="$1" want="${2:-0}" log="$state/replica-$1.log"
    local graph_dir; graph_dir="$(cat "$state/graph")"
    local threads_here; threads_here="$(cat "$state/threads")"
    local quiet_here; quiet_here="$(cat "$state/quiet")"
    # setsid: the replica is not in the caller's process group, so stopping a test run does not take it down
    # before `down` does, and `kill-replica` hits it alone.
    setsid "$wayfinder" serve --graph "$graph_dir" --port "$want" --threads "$threads_here" $quiet_here \
        --max-connections-per-client 4096 >>"$log" 2>&1 </dev/null &
    local pid=$!
    local got=""
    for _ in $(seq 1 600); do
        got="$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$log" 2>/dev/null | tail -1 | sed 's/.*://')" || true
        if [[ -n "$got" && ( "$want" == 0 || "$got" == "$want" ) ]]; then break; fi
        alive "$pid" || die "replica $k did not start: $(tail -3 "$log")"
        got=""
        sleep 0.1
    done
    [[ -n "$got" ]] || die "replica $k did not start listening"
    echo "$got $pid" >"$state/replica-$k.pid"
    wait_healthy "$got" "replica $k"
}

case "$command" in
up)
    [[ -n "$graph" ]] || die "--graph DIR is required"
    [[ -x "$wayfinder" ]] || die "no wayfinder binary at $wayfinder: run swift build -c release"
    [[ -x "$nginx" ]] || die "nginx is not installed (Debian: apt-get install nginx)"
    mkdir -p "$state/nginx-tmp"
    state="$(cd "$state" && pwd)"
    echo "$(cd "$graph" && pwd)" >"$state/graph"
    echo "$threads" >"$state/threads"
    echo "$quiet" >"$state/quiet"
    upstreams=""
    for k in $(seq 1 "$replicas"); do
        start_replica "$k"
        read -r rport _ <"$state/replica-$k.pid"
        upstreams+="        server 127.0.0.1:$rport max_fails=1 fail_timeout=2s;"$'\n'
    done
    access_log="$state/nginx-access.log"
    [[ -n "$quiet" ]] && access_log="off"
    sed -e "s|@STATE@|$state|g" -e "s|@LISTEN@|127.0.0.1:$port|" -e "s|@WORKERS@|1|" \
        -e "s|@FAIL_TIMEOUT@|2 s|" -e "s|@ACCESS_LOG@|$access_log|" "$here/nginx.conf.template" |
        awk -v ups="$upstreams" '{ if ($0 == "@UPSTREAMS@") printf "%s", ups; else print }' >"$state/nginx.conf"
    "$nginx" -p "$state" -c "$state/nginx.conf" -e "$state/nginx-error.log" -t -q || die "nginx refused the configuration"
    # nginx daemonizes: its streams must not hold the caller's pipes open.
    "$nginx" -p "$state" -c "$state/nginx.conf" -e "$state/nginx-error.log" </dev/null >/dev/null 2>>"$state/nginx-error.log"
    wait_healthy "$port" "nginx"
    echo "nginx on http://127.0.0.1:$port in front of $replicas replicas ($(cat "$state"/replica-*.pid | cut -d' ' -f1 | paste -sd, -))"
    ;;
restart-replica)
    [[ -f "$state/replica-$replica.pid" ]] || die "no replica $replica in $state"
    read -r rport rpid <"$state/replica-$replica.pid"
    alive "$rpid" && die "replica $replica (pid $rpid) is still running"
    start_replica "$replica" "$rport"
    echo "replica $replica is back on port $rport"
    ;;
kill-replica)
    [[ -f "$state/replica-$replica.pid" ]] || die "no replica $replica in $state"
    read -r _ rpid <"$state/replica-$replica.pid"
    kill -9 "$rpid"
    ;;
down)
    if [[ -f "$state/nginx.pid" ]]; then
        kill "$(cat "$state/nginx.pid")" 2>/dev/null || true
    fi
    for f in "$state"/replica-*.pid; do
        [[ -f "$f" ]] || continue
        read -r _ rpid <"$f"
        kill "$rpid" 2>/dev/null || true
    done
    # Wait for them to be gone (SIGTERM lets requests in progress finish), bounded.
    for _ in $(seq 1 100); do
        alive=0
        for f in "$state"/replica-*.pid; do
            [[ -f "$f" ]] || continue
            read -r _ rpid <"$f"
            alive "$rpid" && alive=1
        done
        [[ $alive == 0 ]] && break
        sleep 0.1
    done
    ;;
*)
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
