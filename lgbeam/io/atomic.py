"""Atomic file writes and the run-folder lock: the one home of both.

``atomic_write(path)`` yields a binary file object for a temporary file in the same folder; on a clean
exit the file is flushed, synced, given the permissions a plain ``open`` would give it (0666 minus the
umask — ``tempfile.mkstemp`` alone leaves 0600) and renamed over ``path`` (``os.replace``: atomic on
POSIX and Windows), so a reader or a kill at any moment sees either the old or the new file, never a torn
one. On an exception the temporary file is removed and ``path`` is untouched.

``RunLock(folder)`` claims a run folder for one writer (``.lock`` holding the pid and host, created with
O_EXCL); a second writer is refused with the owner's pid; a lock left by a dead process on this host is
stale and taken over with a warning.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, Self

logger = logging.getLogger(__name__)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], suffix: str = ".tmp") -> Iterator[Path]:
    """Yield a temporary path beside ``path`` for a writer that takes a file name (e.g. meshio); on a clean
    exit give it normal permissions and rename it over ``path``; on an exception remove it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], mode: str = "wb", **kwargs: Any) -> Iterator[IO[Any]]:
    """Write ``path`` atomically (temporary file + fsync + ``os.replace``) with normal permissions."""
    with atomic_path(path) as tmp, open(tmp, mode, **kwargs) as fh:
        yield fh
        fh.flush()
        os.fsync(fh.fileno())


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """``atomic_write`` of bytes."""
    with atomic_write(path) as fh:
        fh.write(data)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """``atomic_write`` of a UTF-8 text."""
    with atomic_write(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError as exc:
        return exc.errno == errno.EPERM
    return True


class RunLock:
    """Exclusive claim of a run folder by this process (``with RunLock(folder): ...``)."""

    NAME = ".lock"

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.path = Path(folder) / self.NAME
        self.held = False

    @staticmethod
    def owner(folder: str | os.PathLike[str]) -> tuple[int, str] | None:
        """(pid, host) of the lock's holder, or None when the folder is not locked."""
        try:
            pid, _, host = (Path(folder) / RunLock.NAME).read_text(encoding="utf-8").strip().partition(" ")
            return int(pid), host
        except (OSError, ValueError):
            return None

    @staticmethod
    def is_stale(folder: str | os.PathLike[str]) -> bool:
        """True when the folder's lock belongs to a process of this host that no longer runs."""
        own = RunLock.owner(folder)
        return own is not None and own[1] == socket.gethostname() and not _alive(own[0])

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
            except FileExistsError:
                if self.is_stale(self.path.parent):
                    logger.warning("removing a stale lock of a dead process in %s", self.path.parent)
                    with contextlib.suppress(FileNotFoundError):
                        self.path.unlink()
                    continue
                own = self.owner(self.path.parent)
                who = f"process {own[0]} on {own[1]}" if own else "another process"
                raise FileExistsError(f"run folder {self.path.parent} is in use by {who}; wait for it to finish "
                                      f"or choose another --out") from None
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(f"{os.getpid()} {socket.gethostname()}\n")
            self.held = True
            return
        raise FileExistsError(f"could not lock run folder {self.path.parent}")

    def release(self) -> None:
        if self.held:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            self.held = False

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


__all__ = ["RunLock", "atomic_path", "atomic_write", "atomic_write_text"]
