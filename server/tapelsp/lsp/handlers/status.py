"""`tapelsp/status`: a custom request saying what the server is and what it is doing.

It answers for the server process and for its analysis workers: their process ids,
whether `tensorflow` was ever imported there (it must not be: the server never runs the
user's TensorFlow), and per open document how many analyses ran and how long the last
change took to reach its diagnostics (`settled`: the current version's results were
delivered), and what the live probe did (`probe`: runs started, probe processes running,
kernels attached). Workers are asked only with `{"workers": true}`. Tests and `bench/editor_latency.py` use it.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import TYPE_CHECKING, Any

from .. import jobs
from ..pool import BACKGROUND, WorkerError

if TYPE_CHECKING:
    from ..server import TapeLanguageServer

STATUS = "tapelsp/status"
# Seconds the answer waits for a busy worker before any worker answers for it.
WORKER_PATIENCE = 10.0


def register(server: "TapeLanguageServer") -> None:
    @server.feature(STATUS)
    async def status(ls: "TapeLanguageServer", params: Any) -> dict:
        session = ls.session
        pool = session.pool
        # pygls hands the parameters of a method it does not know over as a namedtuple.
        ask_workers = (params.get("workers") if isinstance(params, dict) else getattr(params, "workers", None)) is True
        # Each worker is asked itself: a job for "any worker" could be taken twice by the one that
        # is idle while the other builds fixes in the background.
        answers = await asyncio.gather(*(pool.run(jobs.Status(), priority=BACKGROUND, prefer=pid,
                                                  patience=WORKER_PATIENCE) for pid in pool.pids()),
                                       return_exceptions=True) if ask_workers else []
        workers = {answer.pid: {"pid": answer.pid, "tensorflowImported": answer.tensorflow_imported,
                                "modules": answer.modules}
                   for answer in answers if isinstance(answer, jobs.WorkerStatus)}
        failures = [str(answer) for answer in answers if isinstance(answer, (WorkerError, Exception))]
        return {
            "pid": os.getpid(),
            "tensorflowImported": "tensorflow" in sys.modules,
            "workerPids": pool.pids(),
            "workers": sorted(workers.values(), key=lambda worker: worker["pid"]),
            "workerErrors": failures,
            "positionEncoding": session.features.encoding,
            "pullDiagnostics": session.features.pull_diagnostics,
            "generation": session.generation,
            "documents": [{"uri": key, **session.scheduler.status(key)} for key in session.open_keys()],
            "probe": session.probes.status(),
            # Requests and notifications pygls still tracks (those being handled).
            "inFlight": len(getattr(ls.protocol, "_request_futures", {})),
        }
