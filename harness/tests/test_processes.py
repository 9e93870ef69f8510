"""What a case starts, as the worker sees it between cases: its descendants, orphans adopted (processes.py)."""
import json
import subprocess
import sys
import textwrap

import pytest
from portability_harness import processes

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and prctl are Linux's")

# Run in a child of its own, as a worker is: it adopts orphans, starts a child, a daemon whose parent exits at
# once, and one that also leaves the session (setsid); then reports what it finds and ends them.
_WORKER = textwrap.dedent("""
    import json, os, subprocess, sys, time
    from portability_harness import processes
    SLEEPS = ["sleep 301.5", "sleep 302.5", "sleep 303.5"]

    def names(pids):
        found = []
        for p in pids:
            try:
                found.append(open(f"/proc/{p}/cmdline").read().replace("\\0", " ").strip())
            except OSError:  # gone meanwhile
                pass
        return sorted(found)

    adopting = processes.adopt_orphans()
    before = processes.descendants(os.getpid())
    child = subprocess.Popen(["sleep", "301.5"])
    subprocess.run(["sh", "-c", "sleep 302.5 &"], check=True)
    subprocess.run(["sh", "-c", "setsid sleep 303.5 &"], check=True)
    # The shells have exited; their children become the sleeps (an exec, or setsid's then an exec) in their time.
    deadline = time.monotonic() + 60
    while names(processes.descendants(os.getpid())) != SLEEPS and time.monotonic() < deadline:
        time.sleep(0.05)
    found = processes.descendants(os.getpid())
    seen = names(found)
    processes.kill(found - before, collect=True)
    after = processes.descendants(os.getpid())
    session = processes.session_members(os.getsid(0)) - {os.getpid()}
    print(json.dumps({"adopting": adopting, "before": sorted(before), "names": seen, "found": sorted(found),
                      "after": sorted(after), "session": sorted(session)}))
""")


def test_the_worker_finds_and_ends_its_children_and_adopted_orphans_even_outside_its_session():
    out = subprocess.run([sys.executable, "-c", _WORKER], capture_output=True, text=True, timeout=60,
                         start_new_session=True)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    assert seen["adopting"] and seen["before"] == []
    # the setsid'd one is outside the session, which a session scan would miss
    assert seen["names"] == ["sleep 301.5", "sleep 302.5", "sleep 303.5"], "the three sleeps, within 60 s"
    assert seen["after"] == [] and seen["session"] == []  # ended, and collected (no zombie listed)
    assert not [pid for pid in seen["found"] if processes.alive(pid)]  # not even elsewhere on the machine


# own_session's preexec_fn in a child whose parent is not the process that made it, as after a parent died between
# the fork and the child's prctl (no death signal then comes): a grandchild started from a fork of that process.
_ORPHANED = textwrap.dedent("""
    import json, os, signal, subprocess
    from portability_harness import processes
    preexec = processes.own_session(signal.SIGTERM)
    direct = subprocess.run(["true"], preexec_fn=preexec).returncode
    pid = os.fork()
    if pid == 0:
        os._exit(subprocess.run(["true"], preexec_fn=preexec).returncode)
    _, status = os.waitpid(pid, 0)
    print(json.dumps({"direct": direct, "orphaned": os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1}))
""")


def test_a_child_whose_parent_is_gone_before_it_asks_for_the_death_signal_ends_before_exec():
    out = subprocess.run([sys.executable, "-c", _ORPHANED], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"direct": 0, "orphaned": 128 + 15}  # `true` never ran in the orphaned one
