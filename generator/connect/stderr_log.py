"""A stdio server's stderr, kept to its last words (:class:`StderrLog`).

The server writes into a pipe that a thread of ours drains, keeping only the last :data:`TAIL_BYTES`. A server
that logs a gigabyte a second while it hangs costs neither disk nor memory (a file it wrote to directly grew
by that much until the request timed out), and a chatty one is never blocked on a full pipe.
"""

from __future__ import annotations

import collections
import os
import select
import threading

TAIL_BYTES = 65_536
"""How much of the end of the server's stderr is kept: its last words, not a whole day of logs."""
CLOSE_SECONDS = 2.0
"""How long :meth:`StderrLog.close` waits for the drain to end (a process the server started may keep its end)."""
_READS = 64
"""Reads of :data:`TAIL_BYTES` one turn takes at most: a server still writing 4 MiB on has no last word yet."""


class StderrLog:
    """The pipe a stdio server gets as its stderr (:attr:`file`), and the last :data:`TAIL_BYTES` it wrote.

    Its read end is non-blocking and read only under the lock, by the drain thread as bytes arrive and by
    :meth:`tail`: a byte is either in the pipe or kept, never in between.
    """

    def __init__(self) -> None:
        read, write = os.pipe()  # neither end is inherited but as the child's descriptor 2
        os.set_blocking(read, False)
        self._read = read
        self.file = os.fdopen(write, "w", encoding="utf-8", errors="replace")
        """What the SDK hands the server process as its stderr."""
        self._chunks: collections.deque[bytes] = collections.deque()
        self._size = 0
        self._ended = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, name="server stderr", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        """Take what arrives until every writer has closed the pipe, then close its read end."""
        poll = select.poll()
        poll.register(self._read, select.POLLIN)
        while True:
            poll.poll()  # bytes, or the pipe's end
            with self._lock:
                self._take()
                if self._ended:
                    os.close(self._read)
                    return

    def _take(self) -> None:
        """Read what is waiting in the pipe (under the lock), keeping the newest :data:`TAIL_BYTES`."""
        for _ in range(_READS):
            if self._ended:
                return
            try:
                chunk = os.read(self._read, TAIL_BYTES)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self._ended = True
                return
            self._chunks.append(chunk)
            self._size += len(chunk)
            while self._size - len(self._chunks[0]) >= TAIL_BYTES:
                self._size -= len(self._chunks.popleft())

    def tail(self) -> str:
        """The last :data:`TAIL_BYTES` the server has written so far."""
        with self._lock:
            self._take()
            data = b"".join(self._chunks)[-TAIL_BYTES:]
        return data.decode("utf-8", errors="replace")

    def close(self) -> None:
        """Close our end of the pipe and wait (for at most :data:`CLOSE_SECONDS`) for the drain to end, which it
        does once the server, gone with its session, has closed its end too: a command then ends with no thread
        of ours left (:func:`generator.heap.end_now` ends at once only then)."""
        self.file.close()
        self._thread.join(CLOSE_SECONDS)
