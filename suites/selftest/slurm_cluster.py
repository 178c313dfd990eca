"""A real Slurm cluster on this host, for the fleet self-test: munged with its
own key and socket, slurmctld, and one slurmd per node (Debian's Slurm runs
several on one host: `NodeName=nX NodeHostName=localhost Port=...`, each
started with `slurmd -N nX`). Ports are chosen free at start; every file
(configuration, state, spool, logs, sockets, pid files) lies in one folder.

Every daemon runs in the foreground as a child of this process and is stopped
by its PID. A reaper process (its own session) stops them too if this process
dies without stopping them (ctest's timeout kills, it does not ask), and
`leftovers()` finds any process that still names the folder (daemons, job
steps) so a test can fail on it.
"""
import os
import signal
import socket
import subprocess
import sys
import time

SLURM_PACKAGES = ("slurmctld", "slurmd", "munge", "slurm-client")


class ClusterError(Exception):
    pass


def provision(root):
    """Debian's Slurm and munge through the project's own installer (idempotent)."""
    # ci/merge's own needs too (the merge job runs it), where lib.sh names them.
    script = (f'source "{root}/ci/lib.sh" && tdc_apt_install {" ".join(SLURM_PACKAGES)} && '
              '{ ! declare -F tdc_provision_report_tools >/dev/null || tdc_provision_report_tools; }')
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
    if done.returncode != 0:
        raise ClusterError(f"cannot install Slurm: {done.stderr.strip().splitlines()[-1:]}")


def free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


REAPER = r"""
import os, signal, sys, time
parent, pids = int(sys.argv[1]), [int(p) for p in sys.argv[2:]]
while True:
    try:
        os.kill(parent, 0)
    except ProcessLookupError:
        break
    if not any(os.path.exists(f"/proc/{p}") for p in pids):
        sys.exit(0)
    time.sleep(1)
for sig in (signal.SIGTERM, signal.SIGKILL):
    for p in pids:
        try:
            os.kill(p, sig)
        except ProcessLookupError:
            pass
    time.sleep(5)
"""


class LocalCluster:
    """nodes: [{"name": "n1", "cpus": 1, "gpus": 0}, ...]; `extra` lines go into slurm.conf."""

    def __init__(self, base, nodes, extra=()):
        self.base = os.path.abspath(base)
        self.nodes = nodes
        self.extra = list(extra)
        self.daemons = []  # (name, Popen)
        self.reaper = None
        self.conf = os.path.join(self.base, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)

    # -- configuration -------------------------------------------------
    def _write_config(self):
        b = self.base
        for folder in ("munge", "ctld", "spool", "log", "dev"):
            os.makedirs(os.path.join(b, folder), exist_ok=True)
        os.chmod(b, 0o755)  # munged wants its socket's folders searchable by all
        os.chmod(os.path.join(b, "munge"), 0o755)
        # ... and every folder above them: say which one is not, before
        # munged exits 1 with "Socket is inaccessible" in a log of its own.
        above = os.path.dirname(os.path.abspath(b))
        while True:
            if not os.stat(above).st_mode & 0o001:
                raise ClusterError(f"{above} is not searchable by all (mode "
                                   f"{oct(os.stat(above).st_mode & 0o777)}): munged refuses a socket below it")
            if above == os.path.dirname(above):
                break
            above = os.path.dirname(above)
        key = os.path.join(b, "munge", "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o600)
        ctld_port, *node_ports = free_ports(1 + len(self.nodes))
        lines = [
            "ClusterName=tdcselftest", "SlurmctldHost=localhost", f"SlurmctldPort={ctld_port}",
            "SlurmUser=root", "SlurmdUser=root", "AuthType=auth/munge", "CredType=cred/munge",
            f"AuthInfo=socket={b}/munge/munge.socket",
            f"StateSaveLocation={b}/ctld", f"SlurmdSpoolDir={b}/spool/%n",
            f"SlurmctldPidFile={b}/slurmctld.pid", f"SlurmdPidFile={b}/slurmd.%n.pid",
            f"SlurmctldLogFile={b}/log/slurmctld.log", f"SlurmdLogFile={b}/log/slurmd.%n.log",
            "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
            "SelectType=select/cons_tres", "SelectTypeParameters=CR_CPU",
            "SchedulerType=sched/backfill", "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/none", "MpiDefault=none", "ReturnToService=2",
            "SlurmdParameters=config_overrides", "MinJobAge=600", "KillWait=5", "InactiveLimit=0",
            "SlurmctldTimeout=60", "SlurmdTimeout=120", "MailProg=/bin/true",
        ]
        gres = []
        if any(n.get("gpus") for n in self.nodes):
            lines.append("GresTypes=gpu")
        for node, port in zip(self.nodes, node_ports):
            line = (f"NodeName={node['name']} NodeHostName=localhost Port={port} "
                    f"CPUs={node.get('cpus', 1)} RealMemory=2000")
            if node.get("gpus"):
                # Device files Slurm accepts (character devices); nothing opens them.
                for i in range(node["gpus"]):
                    path = os.path.join(b, "dev", f"{node['name']}-gpu{i}")
                    if not os.path.exists(path):
                        os.mknod(path, 0o600 | 0o020000, os.makedev(1, 3))
                line += f" Gres=gpu:{node['gpus']}"
                gres.append(f"NodeName={node['name']} Name=gpu "
                            f"File={b}/dev/{node['name']}-gpu[0-{node['gpus'] - 1}]")
            lines.append(line)
        names = ",".join(n["name"] for n in self.nodes)
        lines.append(f"PartitionName=tdc Nodes={names} Default=YES MaxTime=INFINITE State=UP")
        lines += self.extra
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(os.path.join(b, "gres.conf"), "w") as f:
            f.write("\n".join(gres) + "\n")

    # -- daemons -------------------------------------------------------
    def _start(self, name, command):
        log = open(os.path.join(self.base, "log", f"{name}.out"), "w")
        process = subprocess.Popen(command, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, cwd=os.path.join(self.base, "log"))
        self.daemons.append((name, process))
        return process

    def _restart_reaper(self):
        if self.reaper:
            self.reaper.kill()
            self.reaper.wait()
        pids = [str(p.pid) for _, p in self.daemons]
        self.reaper = subprocess.Popen([sys.executable, "-c", REAPER, str(os.getpid()), *pids],
                                       start_new_session=True, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def start(self, timeout=90):
        self._write_config()
        b = self.base
        self._start("munged", ["munged", "-F", f"--key-file={b}/munge/munge.key",
                               f"--socket={b}/munge/munge.socket", f"--pid-file={b}/munge/munged.pid",
                               f"--log-file={b}/munge/munged.log", f"--seed-file={b}/munge/munged.seed"])
        self._wait(lambda: os.path.exists(f"{b}/munge/munge.socket"), 20, "munged made no socket")
        self._start("slurmctld", ["slurmctld", "-D", "-i"])
        for node in self.nodes:
            self._start(f"slurmd-{node['name']}", ["slurmd", "-D", "-N", node["name"]])
        self._restart_reaper()
        self._wait(self._all_idle, timeout, "the nodes did not come up idle")

    def _wait(self, ready, timeout, what):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for name, process in self.daemons:
                if process.poll() is not None:
                    raise ClusterError(f"{name} exited {process.returncode} "
                                       f"(log: {self.base}/log/{name}.out)")
            if ready():
                return
            time.sleep(0.5)
        raise ClusterError(f"{what} within {timeout} s (logs: {self.base}/log)")

    def _all_idle(self):
        done = self.run(["sinfo", "-h", "-N", "-o", "%N %T"], check=False)
        states = dict(line.split() for line in done.stdout.splitlines() if len(line.split()) == 2)
        return len(states) == len(self.nodes) and all(s == "idle" for s in states.values())

    def run(self, command, check=True, timeout=60):
        done = subprocess.run(command, env=self.env, capture_output=True, text=True, timeout=timeout)
        if check and done.returncode != 0:
            raise ClusterError(f"{' '.join(command)}: exit {done.returncode}: {done.stderr.strip()}")
        return done

    def reconfigure(self, lines):
        """Appends LINES to slurm.conf and has every daemon read it again."""
        with open(self.conf, "a") as f:
            f.write("\n".join(lines) + "\n")
        self.run(["scontrol", "reconfigure"])

    def node(self, name):
        """(state, reason) of a node, as sinfo shows them."""
        out = self.run(["sinfo", "-h", "-N", "-n", name, "-o", "%T|%E"]).stdout.splitlines()[0]
        state, _, reason = out.partition("|")
        return state.strip(), reason.strip()

    def stop(self):
        """Cancels every job, stops every daemon by PID (TERM, then KILL)."""
        if any(name == "slurmctld" and p.poll() is None for name, p in self.daemons):
            self.run(["scancel", "--full", "-u", str(os.getuid())], check=False)
            deadline = time.time() + 30
            while time.time() < deadline and self.run(["squeue", "-h"], check=False).stdout.strip():
                time.sleep(1)
        for name, process in reversed(self.daemons):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for name, process in reversed(self.daemons):
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self.reaper:
            self.reaper.kill()
            self.reaper.wait()

    def leftovers(self):
        """PIDs of processes that still name this cluster's folder (command
        line or environment): daemons, job steps, their children."""
        found = []
        marker = self.base.encode()
        for pid in filter(str.isdigit, os.listdir("/proc")):
            if int(pid) == os.getpid():
                continue
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmdline = f.read()
                with open(f"/proc/{pid}/environ", "rb") as f:
                    environ = f.read()
            except OSError:
                continue
            if marker in cmdline or (b"SLURM_CONF=" + marker) in environ:
                found.append((int(pid), cmdline.replace(b"\0", b" ").decode(errors="replace")[:120]))
        return found

    def kill_leftovers(self):
        for pid, _ in self.leftovers():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
