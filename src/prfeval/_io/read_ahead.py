"""Work read ahead on a thread of its own: :class:`ReadAhead` hands over an iterator's items
(Arrow's record batches, blocks) a few ahead of the one being used, and :func:`wait_for`
waits on a future from such a thread, giving up when the program ends.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import Any

__all__ = ["ReadAhead", "wait_for"]


#: How often a waiting reading thread looks whether it is to stop, in seconds.
_POLL_SECONDS = 0.05


def _ending() -> bool:
    """Whether the program is ending: its main thread has finished, and the interpreter is
    waiting for the threads that are not daemons (as :class:`ReadAhead`'s) to end."""
    return not threading.main_thread().is_alive()


def wait_for(future: Future[Any]) -> Any:
    """``future``'s result, on a reading thread: given up when the program ends."""
    while True:
        try:
            return future.result(timeout=_POLL_SECONDS)
        except TimeoutError:
            if _ending():
                raise RuntimeError("the program ended before the judgments were loaded") from None


class ReadAhead:
    """Batches of an Arrow reader, read on a background thread a few batches ahead.

    Whatever the reader raises is raised again where the batches are consumed. ``close``
    stops the thread (it must be called, also when consuming stops early), and the reader
    is closed on the thread that read it.

    The thread is not a daemon. Python stops a daemon thread still running as the
    interpreter ends wherever it is, in Arrow's C++ code too, and C++ then aborts the
    process (``terminate called without an active exception``). If ``close`` was never
    called (the consumer was dropped in a reference cycle, or the main thread ended without
    it), the thread notices the main thread has finished, closes its reader and ends, and
    the interpreter waits for it.
    """

    _END = object()

    def __init__(self, open_reader: Callable[[], Any], depth: int) -> None:
        self._queue: queue.Queue[Any] = queue.Queue(depth)
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._fill, args=(open_reader,), name="prfeval-read-ahead"
        )
        self._thread.start()

    def _fill(self, open_reader: Callable[[], Any]) -> None:
        items = None
        try:
            items = open_reader()
            for batch in items:
                if not self._put(batch):
                    return
        except BaseException as exc:  # handed to the consumer, raised there
            self._put(exc)
            return
        finally:
            # Stopped early or not, the reader is closed here, on the thread that used it,
            # before close() returns and the caller closes the file under it.
            close = getattr(items, "close", None)
            if close is not None:
                close()
        self._put(self._END)

    def _stopping(self) -> bool:
        return self._stop.is_set() or _ending()

    def _put(self, item: Any) -> bool:
        while not self._stopping():
            try:
                self._queue.put(item, timeout=_POLL_SECONDS)
                return True
            except queue.Full:
                continue
        return False

    def __iter__(self) -> Iterator[Any]:
        while True:
            try:
                item = self._queue.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                if self._thread.is_alive():
                    continue
                try:  # it may have put its last item as it ended
                    item = self._queue.get_nowait()
                except queue.Empty:
                    stopped = "the reading thread stopped: the program is ending"
                    raise RuntimeError(stopped) from None
            if item is self._END:
                return
            if isinstance(item, BaseException):
                raise item
            yield item

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
