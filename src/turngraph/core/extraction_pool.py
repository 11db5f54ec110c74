"""Rule extraction in worker processes, with a time limit per turn.

Reading a turn with the rules is CPU work in Python; in the server's process it would compete
with every other request for the interpreter, so one caller's hostile text could slow all
the others. :class:`ProcessExtractor` sends each turn to one of a few worker processes and
waits for the answer in the calling thread (which holds no lock meanwhile). A turn that takes
longer than the limit has its worker killed and replaced and raises
:class:`~turngraph.errors.ExtractionError`, so the turn is stored without extraction, marked
failed, and the caller learns why: the work one request can cost is bounded.
"""

from __future__ import annotations

import multiprocessing
import threading
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from turngraph.errors import ExtractionError
from turngraph.extract.base import Extractor, RawExtraction, TurnContext

START_SECONDS = 60


def _serve(conn: Connection, extractor: Extractor) -> None:
    """A worker's loop: read ``(text, context)``, answer ``(True, extraction)`` or
    ``(False, reason)``. It first says it is ready, so start-up does not count against the
    time limit of a turn."""
    conn.send((True, None))
    while True:
        try:
            text, context = conn.recv()
        except EOFError:
            return
        try:
            conn.send((True, extractor.extract(text, context)))
        except ExtractionError as exc:
            conn.send((False, str(exc)))
        except Exception as exc:  # the extractor's bug must not kill the worker silently
            conn.send((False, f"the extractor failed: {type(exc).__name__}: {exc}"))


class _Worker:
    def __init__(self, extractor: Extractor) -> None:
        context = multiprocessing.get_context("spawn")
        self.conn, child = context.Pipe()
        self.process: BaseProcess = context.Process(
            target=_serve, args=(child, extractor), name="turngraph-extractor", daemon=True
        )
        self.process.start()
        child.close()
        try:
            ready = self.conn.poll(START_SECONDS) and self.conn.recv() == (True, None)
        except (EOFError, OSError):
            ready = False
        if not ready:
            self.stop()
            raise ExtractionError(
                f"an extraction worker did not start within {START_SECONDS} s",
                extractor=extractor.name,
            )

    def stop(self) -> None:
        self.process.kill()
        self.process.join(5)
        self.conn.close()


class ProcessExtractor:
    """Runs ``inner`` (a picklable extractor, such as the rules) in ``workers`` processes.

    At most ``workers`` turns are read at once; further callers wait for a free worker.
    ``extract`` raises :class:`~turngraph.errors.ExtractionError` when the turn takes more
    than ``timeout`` seconds or the extractor fails.
    """

    def __init__(self, inner: Extractor, *, workers: int = 2, timeout: float = 10.0) -> None:
        self.inner = inner
        self.name = inner.name
        self.timeout = timeout
        self.workers = workers
        self._free = threading.Semaphore(workers)
        self._guard = threading.Lock()
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self._closed = False

    def warm(self) -> None:
        """Start the workers now, so the first turns do not wait for them to start."""
        started = [self._take() for _ in range(self.workers)]
        for worker in started:
            self._give_back(worker)

    def extract(self, text: str, context: TurnContext) -> RawExtraction:
        with self._free:
            worker = self._take()
            try:
                ok, value = self._ask(worker, text, context)
            except BaseException:
                self._discard(worker)
                raise
            self._give_back(worker)
        if not ok:
            raise ExtractionError(str(value), extractor=self.name)
        if not isinstance(value, RawExtraction):
            raise ExtractionError("the extractor returned no extraction", extractor=self.name)
        return value

    def _ask(self, worker: _Worker, text: str, context: TurnContext) -> tuple[bool, Any]:
        try:
            worker.conn.send((text, context))
            if not worker.conn.poll(self.timeout):
                raise ExtractionError(
                    f"reading the turn took longer than {self.timeout:g} s; it is stored "
                    "without extraction",
                    extractor=self.name,
                    seconds=self.timeout,
                )
            answer: tuple[bool, Any] = worker.conn.recv()
        except (EOFError, OSError) as exc:
            raise ExtractionError(
                f"the extraction worker stopped: {exc or 'no answer'}", extractor=self.name
            ) from exc
        return answer

    def _take(self) -> _Worker:
        with self._guard:
            if self._closed:
                raise ExtractionError("the extraction workers are closed", extractor=self.name)
            if self._idle:
                return self._idle.pop()
        worker = _Worker(self.inner)
        with self._guard:
            self._all.add(worker)
        return worker

    def _give_back(self, worker: _Worker) -> None:
        with self._guard:
            if not self._closed:
                self._idle.append(worker)
                return
        self._discard(worker)

    def _discard(self, worker: _Worker) -> None:
        with self._guard:
            self._all.discard(worker)
        worker.stop()

    def close(self) -> None:
        """Stop every worker process (a turn being read fails with ExtractionError)."""
        with self._guard:
            self._closed = True
            workers, self._idle = list(self._all), []
            self._all.clear()
        for worker in workers:
            worker.stop()
