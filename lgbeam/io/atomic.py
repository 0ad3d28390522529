"""Atomic file writes and the run-folder lock: the one home of both.

``atomic_write(path)`` yields a binary file object for a temporary file in the same folder; on a clean
exit the file is flushed, synced, given the permissions a plain ``open`` would give it (0666 minus the
umask — ``tempfile.mkstemp`` alone leaves 0600) and renamed over ``path`` (``os.replace``: atomic on
POSIX and Windows), so a reader or a kill at any moment sees either the old or the new file, never a torn
one. On an exception the temporary file is removed and ``path`` is untouched.

``RunLock(folder)`` claims a run folder for one writer (``.lock`` holding the pid and host, created with
O_EXCL); a second writer is refused with the owner's pid; a lock left by a dead process on this host is
stale and taken over with a warning.

No write through a symbolic link inside a run folder (reviews/t4 reliability §2c): while a process holds a run
folder's lock (or inside ``run_folder(root)``) every writer of lgbeam goes through ``checked_path``, which
refuses (``ValueError``, one line naming the link and what to do) a path whose folders below the run folder
include a link (``paraview/``, its series folder, ``figures/``) or whose real path leaves the run folder. A file
that is written whole (``atomic_write``: checkpoint, provenance, .pvd/.vtu/.vtp, PNG, GIF …) may itself be a link:
``os.replace`` swaps the link for a real file and its target is never opened. A file written in place
(``open_in_place``: the streamed diagnostics.csv on ``--resume``) is opened with ``O_NOFOLLOW``, so a link there
is refused too. Links above the run folder (``outputs`` → a scratch disk) are the user's business and allowed.
"""

from __future__ import annotations

import contextlib
import contextvars
import csv
import errno
import io
import logging
import os
import socket
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, NoReturn, Self

logger = logging.getLogger(__name__)


_ROOT: contextvars.ContextVar[Path | None] = contextvars.ContextVar("lgbeam_run_folder", default=None)


@contextlib.contextmanager
def run_folder(root: str | os.PathLike[str]) -> Iterator[Path]:
    """Mark ``root`` as the run folder being written (``RunLock`` does it for its folder): inside, every
    ``checked_path`` under ``root`` refuses symbolic links below it."""
    token = _ROOT.set(Path(os.path.abspath(root)))
    try:
        yield _ROOT.get() or Path(root)
    finally:
        _ROOT.reset(token)


def _refuse_link(link: Path, root: Path) -> NoReturn:
    try:
        target = os.readlink(link)
    except OSError:
        target = "?"
    kind = "folder" if os.path.isdir(link) else "file"
    raise ValueError(f"{link} is a symbolic link (to {target}): lgbeam never writes through a link in a run folder "
                     f"({root}); replace it by a real {kind} (rm {link}; cp -r {target} {link}) or remove it, "
                     "then run again")


def checked_path(path: str | os.PathLike[str], *, final: bool = False) -> Path:
    """``path``, checked for a write inside the active run folder (``run_folder``/``RunLock``): no folder between
    the run folder and ``path`` is a symbolic link (nor ``path`` itself when ``final``) and its real folder is
    inside the run folder's real path; ValueError (one line) otherwise. Paths outside the run folder, or with no
    run folder active, are returned unchecked."""
    path = Path(path)
    root = _ROOT.get()
    if root is None:
        return path
    full = Path(os.path.abspath(path))
    try:
        rel = full.relative_to(root)
    except ValueError:
        return path
    parts = rel.parts if final else rel.parts[:-1]
    node = root
    for part in parts:
        node = node / part
        if os.path.islink(node):
            _refuse_link(node, root)
    real_root, real = os.path.realpath(root), os.path.realpath(full if final else full.parent)
    if os.path.commonpath([real_root, real]) != real_root:
        raise ValueError(f"{path} is outside the run folder {root} (its real path is {real}); lgbeam writes only "
                         "inside the run folder: remove the link that leads out, then run again")
    return path


def check_no_links(run_dir: str | os.PathLike[str], in_place: tuple[str, ...] = ("diagnostics.csv",)) -> None:
    """Refuse up front (ValueError naming it) a run folder with a symbolic link that a resume or a render would
    write through: a link to a folder (or a dangling one) in the folder or one level down (``paraview/``, its
    series folders, ``figures/``), or a link at a file written in place (``in_place``)."""
    root = Path(run_dir)
    for entry in _entries(root):
        if entry.is_symlink() and (entry.name in in_place or not entry.is_file()):
            _refuse_link(Path(entry.path), root)
        if entry.is_dir(follow_symlinks=False):
            for sub in _entries(Path(entry.path)):
                if sub.is_symlink() and not sub.is_file():
                    _refuse_link(Path(sub.path), root)


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as it:
            return list(it)
    except OSError:
        return []


def make_dirs(folder: str | os.PathLike[str]) -> Path:
    """``mkdir -p folder`` after ``checked_path(folder, final=True)`` (an existing link there is refused)."""
    folder = checked_path(folder, final=True)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def open_in_place(path: str | os.PathLike[str], mode: str, **kwargs: Any) -> IO[Any]:
    """``open(path, mode)`` for a file written in place (``"w"``, ``"a"``, ``"r+"``): ``checked_path`` and
    ``O_NOFOLLOW``, so neither a linked folder nor a link at ``path`` itself is written through."""
    path = checked_path(path)
    flags = {"w": os.O_WRONLY | os.O_CREAT | os.O_TRUNC, "a": os.O_WRONLY | os.O_CREAT | os.O_APPEND,
             "r+": os.O_RDWR}[mode.replace("b", "").replace("t", "")]
    try:
        fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), 0o666)
    except OSError as exc:
        if exc.errno == errno.ELOOP or os.path.islink(path):
            _refuse_link(path, _ROOT.get() or path.parent)
        raise
    return os.fdopen(fd, mode, **kwargs)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], suffix: str = ".tmp") -> Iterator[Path]:
    """Yield a temporary path beside ``path`` for a writer that takes a file name (e.g. meshio); on a clean
    exit give it normal permissions and rename it over ``path``; on an exception remove it."""
    path = checked_path(path)
    make_dirs(path.parent)
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


def write_via(path: str | os.PathLike[str], write: Callable[[Path], Any]) -> Path:
    """``write(tmp)`` to a temporary file with ``path``'s suffix (a writer that takes a file name and guesses the
    format from it: ``savefig``, PIL), renamed over ``path`` (``atomic_path``); returns ``path``."""
    path = Path(path)
    with atomic_path(path, suffix=path.suffix or ".tmp") as tmp:
        write(tmp)
    return path


class FolderWriter:
    """Whole files written, many of them, into one folder below the run folder (a ParaView series' frames).

    The folder is checked once (``make_dirs``: no link between the run folder and it) and opened once with
    ``O_NOFOLLOW``; every file is then written relative to that descriptor: to ``.<name>.tmp`` created with
    ``O_CREAT | O_EXCL | O_NOFOLLOW`` (never through a link; a stale one from a killed run is removed first),
    with normal permissions (0666 minus the umask), then renamed over ``name`` (``os.replace``: a link there is
    replaced, its target never opened). So each file is whole or absent under its name, as with ``atomic_path``,
    without resolving the path, making a random name, ``chmod`` and the umask round trip per file; and a folder
    swapped for a link after the check is not followed either (the descriptor is the folder that was checked).
    No fsync (as ``atomic_path``). Where the platform has no ``dir_fd`` calls, each file goes through
    ``atomic_path``."""

    _FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self._fd: int | None = None
        self.folder = make_dirs(folder)
        if {os.open, os.rename, os.unlink} <= os.supports_dir_fd and hasattr(os, "O_DIRECTORY"):  # replace = rename
            try:
                self._fd = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0))
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    _refuse_link(self.folder, _ROOT.get() or self.folder.parent)
                raise

    def write(self, name: str, data: bytes) -> None:
        """``name`` (a plain file name in the folder) holds ``data``, written whole."""
        if self._fd is None:
            with atomic_path(self.folder / name, suffix=Path(name).suffix or ".tmp") as path:
                path.write_bytes(data)
            return
        tmp = f".{name}.tmp"
        try:
            fd = os.open(tmp, self._FLAGS, 0o666, dir_fd=self._fd)
        except FileExistsError:  # left by a killed run (or a link planted there): removed, not followed
            os.unlink(tmp, dir_fd=self._fd)
            fd = os.open(tmp, self._FLAGS, 0o666, dir_fd=self._fd)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)
            os.replace(tmp, name, src_dir_fd=self._fd, dst_dir_fd=self._fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=self._fd)
            raise

    def close(self) -> None:
        """Release the folder's descriptor (later writes go through ``atomic_path``)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __del__(self) -> None:  # a writer dropped without close (an exception in its owner's constructor)
        self.close()


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """``atomic_write`` of bytes."""
    with atomic_write(path) as fh:
        fh.write(data)


def atomic_write_rows(path: str | os.PathLike[str], rows: list[dict[str, Any]]) -> None:
    """A CSV table of ``rows`` (the first row's keys are the header; floats with 17 significant digits, so the
    file reads back to the same doubles), written atomically, its folder made if missing."""
    buf = io.StringIO(newline="")
    w = csv.DictWriter(buf, fieldnames=list(rows[0]))
    w.writeheader()
    for row in rows:
        w.writerow({k: (f"{v:.17g}" if isinstance(v, float) else v) for k, v in row.items()})
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, buf.getvalue())


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
        self._folder: contextlib.AbstractContextManager[Path] | None = None

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
        self._folder = run_folder(self.path.parent)
        self._folder.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self._folder is not None:
                self._folder.__exit__(None, None, None)
                self._folder = None
        finally:
            self.release()


__all__ = ["FolderWriter", "RunLock", "atomic_path", "atomic_write", "atomic_write_rows", "atomic_write_text", "check_no_links", "checked_path", "make_dirs", "open_in_place",
           "run_folder", "write_via"]
