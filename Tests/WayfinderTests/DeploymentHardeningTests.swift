import Foundation
import Testing

/// The deployment tools of deploy/ and cluster/ as a careless or unlucky user meets them: a state directory that
/// holds someone else's files, pid files that name unrelated processes by now, and counts or paths that cannot
/// work. Each test failed before its fix.
@Suite(.serialized) struct DeploymentHardeningTests {
    static let script = DeploymentTests.script
    /// What `local-replicas.sh up` writes first into its state directory (deploy/README.md): written by hand here to
    /// make a directory the script takes for its own, without nginx.
    static let marker = ".local-replicas"
    static let markerText = "state directory of wayfinder deploy/local-replicas.sh\n"
    /// Neither tool exists: if a refusal ever came too late, the script would stop at the missing tool, start
    /// nothing, and the test would fail on the message.
    static let noTools = ["WAYFINDER": "/nonexistent/wayfinder", "NGINX": "/nonexistent/nginx"]

    static func replicas(_ arguments: [String]) throws -> CommandLineTests.Run {
        try Subprocess.run(script, arguments, environment: noTools, timeout: 60)
    }

    /// `python3 -m wayfinder_cluster ARGUMENTS`, with `hiddenPackages` (a directory) first on the module path.
    static func cluster(_ arguments: [String], hiddenPackages: String? = nil, timeout: Double = 60) throws -> CommandLineTests.Run {
        let package = OracleTests.packageRoot.appendingPathComponent("cluster").path
        let path = (hiddenPackages.map { [$0] } ?? []) + [package]
        return try Subprocess.run("/usr/bin/env", ["python3", "-m", "wayfinder_cluster"] + arguments,
                                  environment: ["PYTHONPATH": path.joined(separator: ":")], timeout: timeout)
    }

    static func write(_ text: String, to path: String) throws {
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    static func entries(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    /// Each entry of a directory with what it holds (a link's target's text), to tell whether anything changed.
    static func contents(_ directory: String) -> [String] {
        entries(directory).map { name in
            name + ": " + ((try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)) ?? "")
        }
    }

    /// Whether a process runs (one killed whose parent does not reap it lingers as a zombie: that counts as ended).
    static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.range(of: ") ", options: .backwards) else { return false }
        return !stat[close.upperBound...].hasPrefix("Z")
    }

    /// `sleep 60`, detached from this process: something unrelated to the script that only a signal ends early.
    static func unrelatedProcess() throws -> pid_t {
        let run = try Subprocess.run("/bin/sh", ["-c", "sleep 60 </dev/null >/dev/null 2>&1 & echo $!"])
        guard run.status == 0, let pid = pid_t(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), isRunning(pid)
        else { throw OracleMismatch(message: "cannot start sleep: \(run.stderr)") }
        return pid
    }

    /// A process's start time (/proc/PID/stat field 22) and its command line as the script records them.
    static func processRecord(_ pid: pid_t) throws -> (start: String, commandLine: String) {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        guard let close = stat.range(of: ") ", options: .backwards) else { throw OracleMismatch(message: "odd stat: \(stat)") }
        let fields = stat[close.upperBound...].split(separator: " ")
        guard fields.count > 19 else { throw OracleMismatch(message: "odd stat: \(stat)") }
        let command = try String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)
        return (String(fields[19]), String(command.map { $0 == "\u{0}" ? " " : $0 }))
    }

    /// The pid on the first line of a record (`port pid start`).
    static func recordedPid(_ file: String) throws -> pid_t {
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let fields = text.split(separator: "\n").first?.split(separator: " ") ?? []
        guard fields.count >= 2, let pid = pid_t(fields[1]) else { throw OracleMismatch(message: "no pid in \(file): \(text)") }
        return pid
    }

    // MARK: local-replicas.sh up: a state directory it did not write

    /// `up` wrote nginx.conf, graph, threads and quiet into any --state directory and exited 0. Now a directory that
    /// holds anything the script did not write is refused with one line, before anything is written.
    @Test func upRefusesAStateDirectoryItDidNotWrite() throws {
        let scratch = try TemporaryDirectory()
        let graph = scratch.path + "/graph"
        try FileManager.default.createDirectory(atPath: graph, withIntermediateDirectories: true)
        let victim = scratch.path + "/victim.txt"
        try Self.write("someone's file\n", to: victim)

        // (state directory, what is in it besides, the name the refusal must give)
        let foreign = scratch.path + "/foreign"
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: true)
        try Self.write("keep me\n", to: foreign + "/nginx.conf")
        try Self.write("notes\n", to: foreign + "/notes.txt")
        // The marker alone does not make every file the script's.
        let marked = scratch.path + "/marked"
        try FileManager.default.createDirectory(atPath: marked, withIntermediateDirectories: true)
        try Self.write(Self.markerText, to: marked + "/" + Self.marker)
        try Self.write("notes\n", to: marked + "/notes.txt")
        // Nor is a link under one of its names: writing it would write the file it points to.
        let linked = scratch.path + "/linked"
        try FileManager.default.createDirectory(atPath: linked, withIntermediateDirectories: true)
        try Self.write(Self.markerText, to: linked + "/" + Self.marker)
        try FileManager.default.createSymbolicLink(atPath: linked + "/threads", withDestinationPath: victim)

        for (state, named) in [(foreign, "notes.txt"), (marked, "notes.txt"), (linked, "threads")] {
            let before = Self.contents(state)
            let run = try Self.replicas(["up", "--graph", graph, "--state", state, "--replicas", "1", "--port", "1"])
            #expect(run.status == 1, "\(state): \(run.stderr)")
            #expect(run.stderr.contains("refusing --state") && run.stderr.contains(named), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
            #expect(Self.contents(state) == before, "\(state) was touched")
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "someone's file\n")

        // A file where the directory should be.
        let run = try Self.replicas(["up", "--graph", graph, "--state", victim])
        #expect(run.status == 1 && run.stderr.contains("not a directory"), "\(run.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "someone's file\n")
    }

    // MARK: local-replicas.sh down / kill-replica: pid files that name another process

    /// `down` and `kill-replica` signalled whatever pid a state file held: with a stale or edited pid file, that was
    /// `kill -9` of an unrelated process. Now the pid must still be the process `up` started (start time and command
    /// line, on this state's graph or nginx.conf); otherwise nothing is signalled and the stale file goes.
    @Test func pidFilesNamingAnUnrelatedProcessKillNothing() throws {
        let scratch = try TemporaryDirectory()
        let sleeper = try Self.unrelatedProcess()
        defer { kill(sleeper, SIGKILL) }
        let state = scratch.path + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let replica = state + "/replica-1.pid"
        let (start, commandLine) = try Self.processRecord(sleeper)

        // A directory `up` did not write: refused outright, its pid file untouched.
        try Self.write("45000 \(sleeper)\n", to: replica)
        let notOurs = try Self.replicas(["down", "--state", state])
        #expect(notOurs.status == 1 && notOurs.stderr.contains("did not write"), "\(notOurs.stderr)")
        #expect(Self.isRunning(sleeper), "down signalled a pid from a directory it did not write")
        #expect(FileManager.default.fileExists(atPath: replica))

        try Self.write(Self.markerText, to: state + "/" + Self.marker)
        try Self.write(scratch.path + "\n", to: state + "/graph")
        // (command, what the record holds): a bare pid (a file from before, or edited), and one that copies the
        // sleep's own start time and command line, which is still not `wayfinder serve` on this state's graph.
        let records = ["45000 \(sleeper)\n", "45000 \(sleeper) \(start)\n\(commandLine)\n"]
        for command in ["down", "kill-replica", "restart-replica"] {
            for record in records {
                try Self.write(record, to: replica)
                let arguments = command == "down" ? ["down", "--state", state] : [command, "1", "--state", state]
                let run = try Self.replicas(arguments)
                #expect(Self.isRunning(sleeper), "\(command) signalled an unrelated process (\(record))")
                #expect(run.status == (command == "down" ? 0 : 1), "\(command): \(run.stderr)")
                #expect(run.stderr.contains("not signalling pid \(sleeper)"), "\(command): \(run.stderr)")
                #expect(!FileManager.default.fileExists(atPath: replica), "\(command) left the stale pid file")
            }
        }

        // nginx's record and nginx's own pid file, both naming the sleep.
        try Self.write("8080 \(sleeper) \(start)\n\(commandLine)\n", to: state + "/nginx.started")
        try Self.write("\(sleeper)\n", to: state + "/nginx.pid")
        let down = try Self.replicas(["down", "--state", state])
        #expect(Self.isRunning(sleeper), "down signalled an unrelated process named as nginx")
        #expect(down.status == 0, "\(down.stderr)")
        #expect(down.stderr.contains("not signalling pid \(sleeper)"), "\(down.stderr)")
        #expect(!FileManager.default.fileExists(atPath: state + "/nginx.started")
                && !FileManager.default.fileExists(atPath: state + "/nginx.pid"))

        // A replica number is a number, never a path out of the state directory.
        let escape = try Self.replicas(["kill-replica", "../1", "--state", state])
        #expect(escape.status == 1 && escape.stderr.contains("must be a number"), "\(escape.stderr)")
        #expect(Self.isRunning(sleeper))
    }

    /// The other side of both fixes: a state directory the script wrote is taken again once `down` has stopped its
    /// processes, and refused while they run; `down` stops exactly what `up` started.
    @Test(.enabled(if: Available.nginx, "needs nginx (Debian: apt-get install nginx)"))
    func aStateDirectoryIsReusedOnlyOnceItsProcessesAreGone() throws {
        let scratch = try TemporaryDirectory()
        let state = scratch.path + "/state"  // absent: `up` creates it
        let port = try DeploymentTests.freePort()
        let up = ["up", "--graph", CommandLineTests.graph.1, "--state", state, "--replicas", "1", "--port", String(port),
                  "--quiet"]
        _ = try DeploymentTests.deploy(up)
        defer { _ = try? DeploymentTests.deploy(["down", "--state", state]) }
        let replica = try Self.recordedPid(state + "/replica-1.pid")
        let nginx = try Self.recordedPid(state + "/nginx.started")
        #expect(Self.isRunning(replica) && Self.isRunning(nginx))
        let configuration = try String(contentsOfFile: state + "/nginx.conf", encoding: .utf8)

        let again = try Subprocess.run(Self.script, up, environment: ["WAYFINDER": CommandLineTests.binary], timeout: 60)
        #expect(again.status == 1 && again.stderr.contains("still running"), "\(again.stderr)")
        #expect(try String(contentsOfFile: state + "/nginx.conf", encoding: .utf8) == configuration)
        #expect(try Self.recordedPid(state + "/replica-1.pid") == replica)

        _ = try DeploymentTests.deploy(["down", "--state", state])
        let deadline = Date().addingTimeInterval(5)
        while (Self.isRunning(replica) || Self.isRunning(nginx)) && Date() < deadline { usleep(50_000) }
        #expect(!Self.isRunning(replica) && !Self.isRunning(nginx), "down stopped the replica and nginx")
        #expect(!FileManager.default.fileExists(atPath: state + "/replica-1.pid"))

        let reused = try DeploymentTests.deploy(up)
        #expect(reused.stdout.contains("in front of 1 replicas"), "\(reused.stdout)")
        #expect(try ServerTests.get("http://127.0.0.1:\(port)/health").status == 200)
    }

    // MARK: python -m wayfinder_cluster: counts, dependencies, the output location

    /// `--workers 0` (or -1) waited forever for a worker and left `<output>.incomplete-*`; `--block-rows -2` raised
    /// IndexError, and `--block-rows 0` fell back to the default. Now argparse refuses them (exit 2), before anything
    /// is imported or written.
    @Test(.enabled(if: Available.python("argparse"), "needs python3"))
    func clusterRefusesCountsBelowOne() throws {
        for (option, value) in [("--workers", "0"), ("--workers", "-1"), ("--block-rows", "0"), ("--block-rows", "-2"),
                                ("--threads", "0"), ("--workers", "two")] {
            let scratch = try TemporaryDirectory()
            try Self.write("60.1675,24.9440\n60.1756,24.9412\n", to: scratch.path + "/points.csv")
            let run = try Self.cluster(["table", "--graph", scratch.path, "--sources", scratch.path + "/points.csv",
                                        "--output", scratch.path + "/out", "--wayfinder", "/bin/true", option, value])
            #expect(run.status == 2, "\(option) \(value): \(run.stderr)")
            #expect(run.stderr.contains("argument \(option)") && !run.stderr.contains("Traceback"), "\(run.stderr)")
            #expect(Self.entries(scratch.path) == ["points.csv"], "\(option) \(value) left \(Self.entries(scratch.path))")
        }
    }

    /// `--help` imported pyarrow (and with it numpy and dask) first, and printed a traceback without them. Now they
    /// are imported once the arguments are read; a run without them is one line and exit 1.
    @Test(.enabled(if: Available.python("argparse"), "needs python3"))
    func clusterHelpAndArgumentErrorsNeedNoDependencies() throws {
        let scratch = try TemporaryDirectory()
        // Shadow packages that fail to import, first on the path: as if they were not installed.
        let hidden = scratch.path + "/hidden"
        for name in ["dask", "distributed", "pyarrow", "numpy"] {
            try FileManager.default.createDirectory(atPath: hidden + "/" + name, withIntermediateDirectories: true)
            try Self.write("raise ModuleNotFoundError('hidden by the test', name='\(name)')\n",
                           to: hidden + "/\(name)/__init__.py")
        }
        let help = try Self.cluster(["--help"], hiddenPackages: hidden)
        #expect(help.status == 0 && help.stdout.contains("table"), "\(help.stderr)")
        let tableHelp = try Self.cluster(["table", "--help"], hiddenPackages: hidden)
        #expect(tableHelp.status == 0 && tableHelp.stdout.contains("--block-rows"), "\(tableHelp.stderr)")
        #expect(!(help.stderr + tableHelp.stderr).contains("Traceback"))

        try Self.write("60.1675,24.9440\n", to: scratch.path + "/points.csv")
        let table = ["table", "--graph", scratch.path, "--sources", scratch.path + "/points.csv",
                     "--output", scratch.path + "/out", "--wayfinder", "/bin/true"]
        let bad = try Self.cluster(table + ["--workers", "0"], hiddenPackages: hidden)
        #expect(bad.status == 2 && bad.stderr.contains("argument --workers"), "\(bad.stderr)")
        let missing = try Self.cluster(table, hiddenPackages: hidden)
        #expect(missing.status == 1, "\(missing.stderr)")
        #expect(missing.stderr.contains("not installed") && !missing.stderr.contains("Traceback"), "\(missing.stderr)")
        #expect(missing.stderr.split(separator: "\n").count == 1, "one line: \(missing.stderr)")
        #expect(Self.entries(scratch.path) == ["hidden", "points.csv"], "left \(Self.entries(scratch.path))")
    }

    /// An output that is a link to a missing directory failed only after the whole table was computed (the final
    /// rename onto the link). Now it, and an output under a file, are refused before any `wayfinder` runs: the
    /// stand-in binary here notes every call.
    @Test(.enabled(if: Available.dask, "needs dask.distributed, pyarrow and protobuf (scripts/install-test-tools.sh)"))
    func clusterRefusesAnUnusableOutputBeforeComputing() throws {
        let scratch = try TemporaryDirectory()
        let calls = scratch.path + "/calls"
        let fake = scratch.path + "/wayfinder"
        try Self.write("#!/bin/sh\necho \"$@\" >>'\(calls)'\nexit 1\n", to: fake)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake)
        try Self.write("60.1675,24.9440\n60.1756,24.9412\n", to: scratch.path + "/points.csv")
        let link = scratch.path + "/out"
        let nowhere = scratch.path + "/missing/table"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: nowhere)

        for (output, message) in [(link, "symbolic link"), (scratch.path + "/points.csv/out", "not a directory")] {
            let run = try Self.cluster(["table", "--graph", scratch.path, "--sources", scratch.path + "/points.csv",
                                        "--output", output, "--wayfinder", fake, "--workers", "1"], timeout: 120)
            #expect(run.status == 2, "\(output): \(run.stderr)")
            #expect(run.stderr.contains(message) && !run.stderr.contains("Traceback"), "\(run.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: calls), "wayfinder ran before the output was checked")
        #expect(Self.entries(scratch.path) == ["out", "points.csv", "wayfinder"], "left \(Self.entries(scratch.path))")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == nowhere)
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/missing"))
    }

    /// A link to an empty directory stands for that directory: the dataset lands there and the link still points
    /// to it (before, the final rename failed on the link after the whole table).
    @Test(.enabled(if: Available.dask, "needs dask.distributed, pyarrow and protobuf (scripts/install-test-tools.sh)"))
    func clusterWritesThroughALinkToAnEmptyDirectory() throws {
        let scratch = try TemporaryDirectory()
        try Self.write("60.1675,24.9440\n60.1756,24.9412\n60.1699,24.9384\n", to: scratch.path + "/points.csv")
        let target = scratch.path + "/target"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        let link = scratch.path + "/out"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let run = try Self.cluster(["table", "--graph", CommandLineTests.graph.1, "--sources", scratch.path + "/points.csv",
                                    "--output", link, "--wayfinder", CommandLineTests.binary, "--workers", "1"],
                                   timeout: 150)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.entries(target).contains("table.json") && Self.entries(target).contains("waypoints.parquet"),
                "\(Self.entries(target))")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(Self.entries(scratch.path) == ["out", "points.csv", "target"], "left \(Self.entries(scratch.path))")
    }
}
