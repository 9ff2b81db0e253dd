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
# `up` writes only into an absent or empty --state directory, or one an earlier `up` wrote whose processes are gone.
# Signals go only to processes that are still the ones `up` started (same pid, start time and command line).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
wayfinder="${WAYFINDER:-$here/../.build/release/wayfinder}"
nginx="${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}"

die() { echo "local-replicas: $*" >&2; exit 1; }
note() { echo "local-replicas: $*" >&2; }

# What `up` writes first into a state directory: what tells a directory of ours from anyone else's.
marker=".local-replicas"
marker_text="state directory of wayfinder deploy/local-replicas.sh"

usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; }

command="${1:-}"; shift || true
case "$command" in
    up|down|restart-replica|kill-replica) ;;
    -h|--help|help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
esac
graph="" state="" replicas=3 port=8080 threads=1 quiet="" replica=""
if [[ "$command" == restart-replica || "$command" == kill-replica ]]; then replica="${1:-}"; shift || true; fi
while [[ $# -gt 0 ]]; do
    case "$1" in
        --graph|--state|--replicas|--port|--threads) [[ $# -ge 2 ]] || die "$1 needs a value" ;;&
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
positive() { [[ "$1" =~ ^[1-9][0-9]{0,5}$ ]]; }
positive "$replicas" || die "--replicas must be a whole number above zero, not '$replicas'"
positive "$threads" || die "--threads must be a whole number above zero, not '$threads'"
{ positive "$port" && ((port <= 65535)); } || die "--port must be a port number (1-65535), not '$port'"
# K names a file in the state directory: a number, never a path.
if [[ "$command" == restart-replica || "$command" == kill-replica ]]; then
    positive "$replica" || die "replica must be a number from 1, not '$replica'"
fi

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
    [[ "$1" =~ ^[1-9][0-9]*$ && -r "/proc/$1/stat" ]] && [[ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]]
}

# A process's start time in clock ticks after boot (/proc/PID/stat field 22). With the pid it names one process:
# a pid is reused only by a process started later. Empty when there is no such process.
start_time() {
    local stat fields
    stat="$( { cat "/proc/$1/stat"; } 2>/dev/null )" || return 0
    stat="${stat##*) }"  # field 2, the name, may hold spaces and parentheses
    read -r -a fields <<<"$stat"
    echo "${fields[19]:-}"
}

# A process's command line, its arguments separated by spaces.
command_line() { { tr '\0' ' ' <"/proc/$1/cmdline"; } 2>/dev/null || true; }

# Writes a process record: "port pid start-time", then the command line. A replica's is replica-K.pid; nginx's is
# nginx.started (nginx.pid is nginx's own).
record() {
    local file="$1" rport="$2" pid="$3" start command
    start="$(start_time "$pid")"
    command="$(command_line "$pid")"
    [[ -n "$start" && -n "$command" ]] || die "process $pid ended before it could be recorded (see the logs in $state)"
    printf '%s %s %s\n%s\n' "$rport" "$pid" "$start" "$command" >"$file"
}

# What a process record names now: "ours PID" when that pid is still the process `up` started: the same start time
# and command line, and the line names this state's graph or nginx.conf (NEEDLE). "gone" when it has exited.
# "other PID" when the record names some other process: one left from before a reboot, or edited, can name any
# process by now, and a signal would hit it.
check_record() {
    local file="$1" needle="$2" rport="" pid="" start="" command=""
    # IFS=: the command line keeps its trailing space, as command_line gives it.
    { read -r rport pid start || true; IFS= read -r command || true; } <"$file"
    if [[ ! "$pid" =~ ^[1-9][0-9]{0,9}$ ]]; then echo "other ${pid:-none}"; return; fi
    if ! alive "$pid"; then echo gone; return; fi
    if [[ -n "$start" && "$(start_time "$pid")" == "$start" && "$(command_line "$pid")" == "$command" &&
          "$command" == *"$needle"* ]]; then
        echo "ours $pid"
    else
        echo "other $pid"
    fi
}

# What a replica's or nginx's command line must hold.
replica_needle() { echo " serve --graph $(cat "$state/graph" 2>/dev/null || true) --port "; }
nginx_needle() { echo " -c $state/nginx.conf "; }

# The pid of the process a record names if it is still ours, else nothing. A record that names another process
# is removed, and says so: it is stale, and nothing will ever signal through it.
owned_pid() {
    local file="$1" needle="$2" what="$3" verdict pid
    read -r verdict pid <<<"$(check_record "$file" "$needle")"
    case "$verdict" in
        ours) echo "$pid" ;;
        other)
            if [[ "$pid" =~ ^[0-9]+$ ]]; then
                note "not signalling pid $pid from $file: it is not the $what that this script started" \
                    "(it runs: $(command_line "$pid" | sed 's/ *$//' | cut -c1-120)); removed the stale pid file"
            else
                note "$file names no process: removed the stale pid file"
            fi
            rm -f "$file"
            ;;
    esac
}

# Refuses (without touching anything) a state directory that `up` may not write into. Absent or empty is fine, and
# so is one an earlier `up` wrote: it has the marker, only names `up` and nginx write (no links, which would send
# the writes elsewhere), and none of its processes still runs.
check_state_for_up() {
    [[ -e "$state" || -L "$state" ]] || return 0
    [[ -d "$state" ]] || die "refusing --state $state: it is not a directory"
    [[ -r "$state" && -w "$state" && -x "$state" ]] || die "refusing --state $state: cannot read and write it"
    state="$(cd "$state" && pwd -P)"  # as an earlier `up` wrote it into nginx.conf
    local entries foreign=() path name
    shopt -s nullglob dotglob
    entries=("$state"/*)
    shopt -u nullglob dotglob
    ((${#entries[@]} > 0)) || return 0
    local ours=0
    [[ -f "$state/$marker" && ! -L "$state/$marker" && "$(cat "$state/$marker")" == "$marker_text" ]] && ours=1
    for path in "${entries[@]}"; do
        name="${path##*/}"
        if ((ours == 0)) || ! known_entry "$name"; then foreign+=("${name//[[:cntrl:]]/?}"); fi
    done
    if ((${#foreign[@]} > 0)); then
        local shown; shown="$(printf '%s\n' "${foreign[@]}" | sort | head -5 | paste -sd, - | sed 's/,/, /g')"
        ((${#foreign[@]} > 5)) && shown+=", …"
        die "refusing --state $state: it holds files that local-replicas.sh did not write ($shown); choose a new or empty directory"
    fi
    local file verdict pid needle
    for file in "$state"/replica-*.pid "$state/nginx.started"; do
        [[ -f "$file" ]] || continue
        [[ "$file" == */nginx.started ]] && needle="$(nginx_needle)" || needle="$(replica_needle)"
        read -r verdict pid <<<"$(check_record "$file" "$needle")"
        [[ "$verdict" != ours ]] || die "refusing --state $state: it is still running (pid $pid, ${file##*/}); run down first"
    done
}

# Whether an entry of a state directory that has the marker is one `up` (or the nginx it starts) writes.
known_entry() {
    local name="$1" path="$state/$1" inside
    [[ ! -L "$path" ]] || return 1
    case "$name" in
        "$marker"|graph|threads|quiet|nginx.conf|nginx.pid|nginx.started|nginx-error.log|nginx-access.log)
            [[ -f "$path" ]] ;;
        replica-*.pid|replica-*.log)
            [[ "$name" =~ ^replica-[1-9][0-9]*\.(pid|log)$ && -f "$path" ]] ;;
        nginx-tmp)
            # nginx's temporary directories (nginx.conf.template), whatever they hold.
            [[ -d "$path" ]] || return 1
            shopt -s nullglob dotglob
            local temporaries=("$path"/*)
            shopt -u nullglob dotglob
            for inside in "${temporaries[@]}"; do
                case "${inside##*/}" in body|proxy|fastcgi|uwsgi|scgi) ;; *) return 1 ;; esac
                [[ ! -L "$inside" && -d "$inside" ]] || return 1
            done ;;
        *) return 1 ;;
    esac
}

# Refuses a directory that `up` did not write: the other commands act on its pid files.
check_state_is_ours() {
    [[ -d "$state" ]] || die "no state directory $state"
    [[ -f "$state/$marker" && "$(cat "$state/$marker" 2>/dev/null)" == "$marker_text" ]] ||
        die "refusing --state $state: local-replicas.sh up did not write it"
    state="$(cd "$state" && pwd -P)"  # as `up` wrote it into nginx.conf
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

# Starts replica K: on its recorded port if it had one, else on a free port; records it in replica-K.pid.
start_replica() {
    local k="$1" want="${2:-0}" log="$state/replica-$1.log"
    local graph_dir; graph_dir="$(cat "$state/graph")"
    local threads_here; threads_here="$(cat "$state/threads")"
    local quiet_here; quiet_here="$(cat "$state/quiet")"
    # Only what this start writes to the log counts: an earlier run's "listening" line is not this replica's.
    local offset=0
    [[ -f "$log" ]] && offset="$(stat -c %s "$log")"
    # setsid: the replica is not in the caller's process group, so stopping a test run does not take it down
    # before `down` does, and `kill-replica` hits it alone.
    setsid "$wayfinder" serve --graph "$graph_dir" --port "$want" --threads "$threads_here" $quiet_here \
        --max-connections-per-client 4096 >>"$log" 2>&1 </dev/null &
    local pid=$!
    local got=""
    for _ in $(seq 1 600); do
        got="$(tail -c +"$((offset + 1))" "$log" 2>/dev/null | grep -o 'listening on http://127.0.0.1:[0-9]*' |
            tail -1 | sed 's/.*://')" || true
        if [[ -n "$got" && ( "$want" == 0 || "$got" == "$want" ) ]]; then break; fi
        alive "$pid" || die "replica $k did not start: $(tail -3 "$log")"
        got=""
        sleep 0.1
    done
    [[ -n "$got" ]] || die "replica $k did not start listening"
    # Recorded once it listens, so after setsid has become wayfinder: the command line is the replica's.
    record "$state/replica-$k.pid" "$got" "$pid"
    wait_healthy "$got" "replica $k"
}

case "$command" in
up)
    [[ -n "$graph" ]] || die "--graph DIR is required"
    [[ -d "$graph" ]] || die "no graph directory $graph"
    # Before anything is written, and before the tools are looked for: a refused directory is never touched.
    check_state_for_up
    [[ -x "$wayfinder" ]] || die "no wayfinder binary at $wayfinder: run swift build -c release"
    [[ -x "$nginx" ]] || die "nginx is not installed (Debian: apt-get install nginx)"
    mkdir -p "$state"
    state="$(cd "$state" && pwd -P)"  # the same path whichever way later commands name it
    echo "$marker_text" >"$state/$marker"
    # Left by the last run, whose processes are gone (checked above).
    rm -f "$state"/replica-*.pid "$state/nginx.started" "$state/nginx.pid"
    mkdir -p "$state/nginx-tmp"
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
    "$nginx" -p "$state" -c "$state/nginx.conf" -e "$state/nginx-error.log" </dev/null >/dev/null 2>>"$state/nginx-error.log" ||
        die "nginx did not start: $(tail -1 "$state/nginx-error.log"); run down to stop the replicas"
    for _ in $(seq 1 100); do [[ -s "$state/nginx.pid" ]] && break; sleep 0.1; done
    [[ -s "$state/nginx.pid" ]] || die "nginx did not start: $(tail -3 "$state/nginx-error.log")"
    wait_healthy "$port" "nginx"
    # Recorded once it answers: by then the master has set its process title, which is its command line for good.
    record "$state/nginx.started" "$port" "$(cat "$state/nginx.pid")"
    echo "nginx on http://127.0.0.1:$port in front of $replicas replicas ($(head -qn1 "$state"/replica-*.pid | cut -d' ' -f1 | paste -sd, -))"
    ;;
restart-replica)
    check_state_is_ours
    file="$state/replica-$replica.pid"
    [[ -f "$file" ]] || die "no replica $replica in $state"
    read -r rport _ <"$file"
    read -r verdict rpid <<<"$(check_record "$file" "$(replica_needle)")"
    [[ "$verdict" != ours ]] || die "replica $replica (pid $rpid) is still running"
    # Its port comes from the record: one that names another process may have been edited.
    if [[ "$verdict" != gone ]]; then
        owned_pid "$file" "$(replica_needle)" replica >/dev/null
        die "replica $replica not restarted: its pid file was stale"
    fi
    start_replica "$replica" "$rport"
    echo "replica $replica is back on port $rport"
    ;;
kill-replica)
    check_state_is_ours
    file="$state/replica-$replica.pid"
    [[ -f "$file" ]] || die "no replica $replica in $state"
    rpid="$(owned_pid "$file" "$(replica_needle)" replica)"
    [[ -n "$rpid" ]] || die "replica $replica is not running: nothing killed"
    kill -9 "$rpid"
    ;;
down)
    check_state_is_ours
    # Only the processes `up` started; a record that names another process is removed, not acted on.
    signalled=()
    for file in "$state/nginx.started" "$state"/replica-*.pid; do
        [[ -f "$file" ]] || continue
        if [[ "$file" == */nginx.started ]]; then
            pid="$(owned_pid "$file" "$(nginx_needle)" nginx)"
        else
            pid="$(owned_pid "$file" "$(replica_needle)" replica)"
        fi
        [[ -n "$pid" ]] || continue
        kill "$pid" 2>/dev/null || true
        signalled+=("$pid")
    done
    # nginx.pid is nginx's own and goes with it; one naming any process but the nginx above is stale.
    if [[ -f "$state/nginx.pid" ]]; then
        read -r pid <"$state/nginx.pid" || true
        if [[ " ${signalled[*]} " != *" ${pid:-none} "* ]]; then
            alive "${pid:-none}" && note "not signalling pid $pid from $state/nginx.pid: it is not the nginx that" \
                "this script started (it runs: $(command_line "$pid" | sed 's/ *$//' | cut -c1-120)); removed the stale pid file"
            rm -f "$state/nginx.pid"
        fi
    fi
    # Wait for them to be gone (SIGTERM lets requests in progress finish), bounded.
    for _ in $(seq 1 100); do
        running=0
        for pid in "${signalled[@]}"; do alive "$pid" && running=1; done
        [[ $running == 0 ]] && break
        sleep 0.1
    done
    # The records of what has exited go; one still running keeps its record, so that `down` can be run again.
    status=0
    for file in "$state/nginx.started" "$state"/replica-*.pid; do
        [[ -f "$file" ]] || continue
        read -r verdict pid <<<"$(check_record "$file" "")"
        if [[ "$verdict" == ours ]]; then
            note "pid $pid (${file##*/}) is still running after 10 s"
            status=1
        else
            rm -f "$file"
        fi
    done
    exit $status
    ;;
esac
