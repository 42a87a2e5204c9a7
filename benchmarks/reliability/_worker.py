"""One worker process that answers hostile cases one JSON line at a time, so that a case
which kills or hangs the process is counted as a crash instead of ending the run (shared by
the reliability scripts of this folder)."""

from __future__ import annotations

import json
import select
import subprocess
import sys


class Worker:
    """``script --worker`` in a child process; :meth:`ask` sends one job and reads one answer.

    A worker that dies, or gives no answer within ``timeout`` seconds (then killed), is
    restarted, and the answer is ``{"outcome": "crash", "detail": ..., **crash_fields}``."""

    def __init__(self, script: str, **crash_fields):
        self.script = script
        self.crash_fields = crash_fields
        self.start()

    def start(self):
        self.process = subprocess.Popen(
            [sys.executable, self.script, "--worker"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True,
        )

    def ask(self, job: dict, timeout: float = 60.0) -> dict:
        line = ""
        try:
            self.process.stdin.write(json.dumps(job) + "\n")
            self.process.stdin.flush()
            ready, _, _ = select.select([self.process.stdout], [], [], timeout)
            if ready:
                line = self.process.stdout.readline()
        except BrokenPipeError:
            pass
        if line:
            return json.loads(line)
        if self.process.poll() is None:
            self.process.kill()
            detail = f"no answer within {timeout:g} s (killed)"
        else:
            detail = f"the process died (exit code {self.process.returncode})"
        self.process.wait()
        self.start()
        return {"outcome": "crash", "detail": detail, **self.crash_fields}

    def close(self):
        self.process.stdin.close()
        self.process.wait()
