"""Safe writing of every output of the package: a temporary sibling, then a rename.

Shared by every layer that writes (``metrics.score.write_scores``, ``report.tables``, the
simulator, ``artifacts.reproduce``, the study store, the CLI). The rules:

- **Files** are written under a hidden temporary name next to the destination
  (``.<name>.tmp-<pid>-<token>``) and renamed over it with :func:`os.replace`, so a reader, or a
  run killed at any moment, sees either the old complete file or the new one.
- **Directories** are built in a hidden sibling (:func:`staging_dir`) and swapped in by
  :func:`replace_dir`: on Linux with one atomic ``renameat2(RENAME_EXCHANGE)``, so a SIGKILL at
  any moment leaves the old complete directory or the new one at the destination, never only a
  hidden copy. Where the exchange is not available (other systems, some file systems) the old
  directory is renamed aside first; a run killed between the two renames leaves it under
  ``.<name>.old-<pid>-<token>``, and the next run puts it back (:func:`clean_leftovers`).
- **Leftovers** of killed runs (temporary files and directories whose process is gone, and the
  names used by earlier versions) are removed by the next write to the same destination.
- **Modes**: files ``0666`` and directories ``0777``, less the umask (``0644``/``0755`` with the
  usual ``022``), as ``open`` and ``mkdir`` give; never the ``0600``/``0700`` of
  :mod:`tempfile`.
- **Errors**: a destination that cannot be used (an existing file where a directory is expected,
  or the reverse; a parent that is not a directory; no permission; a read-only file system)
  raises :class:`OutputError`, whose message is one line naming the destination in the caller's
  words (``what="--out"``), checked before any work where the caller asks for it
  (:func:`check_file_destination`, :func:`check_dir_destination`).
- **Only our own directories are replaced**: a non-empty directory at the destination of a
  directory output is replaced only when it is an earlier output of the same kind (a build
  with its ``MANIFEST.json``, a simulated release); anything else is refused before any work
  (:func:`check_dir_destination` with ``ours=``), so a typo in ``--out`` never deletes a user's
  files.

May import: only the standard library (every layer may import it).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import re
import secrets
import shutil
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

__all__ = [
    "OutputError",
    "atomic_open",
    "atomic_write_bytes",
    "atomic_write_text",
    "check_dir_destination",
    "check_file_destination",
    "clean_leftovers",
    "current_umask",
    "fix_modes",
    "replace_dir",
    "staging_dir",
    "write_files",
]


class OutputError(OSError):
    """An output destination that cannot be used; the message is one line for the user."""

    def __str__(self) -> str:  # OSError(msg) would print "msg"; keep it that way for any args
        return str(self.args[0]) if self.args else ""


# --- naming -------------------------------------------------------------------------------------


def _token() -> str:
    return f"{os.getpid()}-{secrets.token_hex(4)}"


def _tmp_name(target: Path, kind: str) -> Path:
    return target.with_name(f".{target.name}.{kind}-{_token()}")


def _leftover_pattern(name: str) -> re.Pattern[str]:
    n = re.escape(name)
    # ours: .<name>.tmp-<pid>-<hex> / .<name>.old-<pid>-<hex>;
    # earlier versions: .<name>-build-<rand>, .<name>-old-<pid>-<ns> (reproduce),
    # .<name>.tmp-<rand>, .<name>.old-<rand> (simulator), .<name>.<8 chars> (write_scores)
    return re.compile(
        rf"^\.{n}(?:\.(?P<kind>tmp|old)-(?P<pid>\d+)-[0-9a-f]{{8}}"
        rf"|-(?P<lbuild>build)-[a-z0-9_]+"
        rf"|-(?P<lold>old)-(?P<lpid>\d+)-\d+"
        rf"|\.(?P<sim>tmp|old)-[a-z0-9_]{{8}}"
        rf"|\.(?P<stemp>[a-z0-9_]{{8}}))$"
    )


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def current_umask() -> int:
    """The process umask (read without changing it where ``/proc`` allows)."""
    with (
        contextlib.suppress(OSError, ValueError),
        open("/proc/self/status", encoding="ascii") as fh,
    ):
        for line in fh:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def clean_leftovers(target: str | os.PathLike[str]) -> list[Path]:
    """Remove what killed runs left next to ``target``; put back a lost old directory.

    Temporary files and directories of processes that are still running are left alone. If
    ``target`` does not exist but an old copy renamed aside survives (a run killed between the
    two renames of the fallback replace, or of earlier versions), the newest such copy is
    renamed back to ``target`` first. Returns the paths removed or restored.
    """
    target = Path(target)
    parent = target.parent if str(target.parent) else Path(".")
    pattern = _leftover_pattern(target.name)
    try:
        names = os.listdir(parent)
    except OSError:
        return []
    olds: list[Path] = []
    stale: list[Path] = []
    for name in names:
        m = pattern.match(name)
        if m is None:
            continue
        pid = m.group("pid") or m.group("lpid")
        if pid is not None and _alive(int(pid)):
            continue
        path = parent / name
        if m.group("kind") == "old" or m.group("lold") or m.group("sim") == "old":
            olds.append(path)
        else:
            stale.append(path)
    done: list[Path] = []
    if olds and not os.path.lexists(target):
        newest = max(olds, key=lambda p: p.stat().st_mtime_ns)
        with contextlib.suppress(OSError):
            os.rename(newest, target)
            olds.remove(newest)
            done.append(newest)
    for path in stale + olds:
        _remove(path)
        done.append(path)
    return done


# --- checks ---------------------------------------------------------------------------------------


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def _probe_writable(folder: Path, shown: str, what: str) -> None:
    probe = folder / f".attunestats-probe-{_token()}"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:
        raise OutputError(
            f"{what} {shown}: cannot write in {str(folder)!r}: {_reason(exc)}"
        ) from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)


def _existing_ancestor(path: Path, shown: str, what: str) -> Path:
    """The nearest existing ancestor of ``path``; it must be a directory."""
    probe = path.parent
    while not os.path.lexists(probe):
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        raise OutputError(f"{what} {shown}: {str(probe)!r} is a file, not a directory")
    return probe


def check_file_destination(
    path: str | os.PathLike[str], *, what: str = "output", create_parents: bool = False
) -> Path:
    """Check, before any work, that a file can be written at ``path``; return it as a Path.

    Refused with :class:`OutputError` (one line, naming ``what`` and the path): an existing
    directory (or anything but a regular file or a symlink to one) at ``path``; a missing parent
    (unless ``create_parents``); a parent that is a file; a parent where this process cannot
    create files.
    """
    p = Path(path)
    shown = repr(str(path))
    if p.is_dir():
        raise OutputError(f"{what} {shown} is a directory; give a file name")
    if os.path.lexists(p) and not p.is_file():
        raise OutputError(f"{what} {shown} exists and is not a regular file")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        if os.path.lexists(parent):
            raise OutputError(f"{what} {shown}: {str(parent)!r} is a file, not a directory")
        if not create_parents:
            raise OutputError(f"{what} {shown}: directory {str(parent)!r} does not exist")
        _probe_writable(_existing_ancestor(p, shown, what), shown, what)
        return p
    _probe_writable(parent, shown, what)
    return p


def check_dir_destination(
    path: str | os.PathLike[str],
    *,
    what: str = "output",
    ours: Callable[[Path], bool] | None = None,
    kind: str = "an earlier output of this command",
) -> Path:
    """Check, before any work, that a directory can be (re)placed at ``path``; return it.

    Refused with :class:`OutputError`: an existing file (or anything but a directory) at
    ``path``; an ancestor that is a file; a parent where this process cannot create entries;
    and, when ``ours`` is given, an existing non-empty directory for which ``ours(path)`` is
    false (it is not ``kind``, and replacing it would delete files this package did not write).
    """
    p = Path(path)
    shown = repr(str(path))
    if os.path.lexists(p) and not p.is_dir():
        raise OutputError(f"{what} {shown} exists and is a file, not a directory")
    if ours is not None and p.is_dir():
        try:
            with os.scandir(p) as entries:
                empty = next(entries, None) is None
        except OSError as exc:
            raise OutputError(
                f"{what} {shown}: cannot read the directory: {_reason(exc)}"
            ) from None
        if not empty and not ours(p):
            raise OutputError(
                f"{what} {shown} is a non-empty directory that is not {kind}; it would be "
                "replaced as a whole, so it is left alone: choose a new or empty directory, or "
                "remove it first"
            )
    ancestor = _existing_ancestor(p, shown, what)
    _probe_writable(ancestor, shown, what)
    return p


# --- files ----------------------------------------------------------------------------------------


@contextlib.contextmanager
def atomic_open(
    path: str | os.PathLike[str], mode: str = "w", *, encoding: str | None = None,
    newline: str | None = None, what: str = "output",
) -> Iterator[IO[Any]]:  # fmt: skip
    """Open a temporary sibling of ``path`` for writing; rename it over ``path`` on success.

    ``mode`` is ``"w"`` (text, ``encoding`` default utf-8) or ``"wb"``. On an exception the
    temporary file is removed and ``path`` is untouched. The file gets mode 0666 less the umask.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', got {mode!r}")
    target = Path(path)
    if target.is_dir():
        raise OutputError(f"{what} {str(path)!r} is a directory; give a file name")
    clean_leftovers(target)
    tmp = _tmp_name(target, "tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:
        raise OutputError(f"{what} {str(path)!r}: cannot write: {_reason(exc)}") from None
    try:
        if mode == "wb":
            fh: IO[Any] = os.fdopen(fd, "wb")
        else:
            fh = os.fdopen(fd, "w", encoding=encoding or "utf-8", newline=newline)
        with fh:
            yield fh
        try:
            os.replace(tmp, target)
        except OSError as exc:
            raise OutputError(f"{what} {str(path)!r}: cannot write: {_reason(exc)}") from None
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, *, what: str = "output") -> Path:
    """Write ``data`` to ``path`` through a temporary sibling and a rename."""
    with atomic_open(path, "wb", what=what) as fh:
        fh.write(data)
    return Path(path)


def atomic_write_text(
    path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8", what: str = "output"
) -> Path:
    """Write ``text`` to ``path`` through a temporary sibling and a rename (``\\n`` line ends)."""
    return atomic_write_bytes(path, text.encode(encoding), what=what)


def write_files(files: Mapping[Path, Any], *, what: str = "output") -> list[Path]:
    """Write several sibling files: every one to its temporary name first, then all renamed.

    ``files`` maps each destination to a writer ``fn(tmp_path)`` that writes the content. When a
    writer fails, no destination is touched. The renames follow one another; each file is
    replaced atomically (a run killed between two renames leaves some files new, the others
    old, every one complete).
    """
    done: list[tuple[Path, Path]] = []
    try:
        for target, writer in files.items():
            target = Path(target)
            if target.is_dir():
                raise OutputError(f"{what} {str(target)!r} is a directory; give a file name")
            clean_leftovers(target)
            tmp = _tmp_name(target, "tmp")
            try:
                os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            except OSError as exc:
                raise OutputError(f"{what} {str(target)!r}: cannot write: {_reason(exc)}") from None
            done.append((tmp, target))
            writer(tmp)
        for tmp, target in done:
            try:
                os.replace(tmp, target)
            except OSError as exc:
                raise OutputError(f"{what} {str(target)!r}: cannot write: {_reason(exc)}") from None
    except BaseException:
        for tmp, _ in done:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        raise
    return [target for _, target in done]


# --- directories ----------------------------------------------------------------------------------


def staging_dir(target: str | os.PathLike[str], *, what: str = "output") -> Path:
    """Create the hidden sibling directory in which a new ``target`` is built.

    Cleans the leftovers of killed runs first (:func:`clean_leftovers`) and creates missing
    parents. The directory gets mode 0777 less the umask (not the 0700 of ``mkdtemp``).
    """
    target = Path(target)
    check_dir_destination(target, what=what)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(
            f"{what} {str(target)!r}: cannot create its parent: {_reason(exc)}"
        ) from None
    clean_leftovers(target)
    tmp = _tmp_name(target, "tmp")
    try:
        os.mkdir(tmp, 0o777)
    except OSError as exc:
        raise OutputError(f"{what} {str(target)!r}: cannot write: {_reason(exc)}") from None
    return tmp


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux ``renameat2``); False where it is not supported."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
        return False
    raise OSError(err, os.strerror(err), str(b))


def fix_modes(root: str | os.PathLike[str]) -> None:
    """Give ``root`` and every directory and file under it mode 0777/0666 less the umask."""
    mask = current_umask()
    dmode, fmode = 0o777 & ~mask, 0o666 & ~mask
    root = Path(root)
    os.chmod(root, dmode)
    for folder, dirs, files in os.walk(root):
        for d in dirs:
            os.chmod(os.path.join(folder, d), dmode)
        for f in files:
            p = os.path.join(folder, f)
            if not os.path.islink(p):
                os.chmod(p, fmode)


def replace_dir(new: str | os.PathLike[str], target: str | os.PathLike[str], *,
                what: str = "output") -> Path:  # fmt: skip
    """Put the directory ``new`` (a :func:`staging_dir`) in place of ``target``.

    Without an existing ``target`` this is one rename. Otherwise the two are exchanged
    atomically where the system allows (then the old content, now under the staging name, is
    deleted); a SIGKILL at any moment leaves the old or the new complete directory at
    ``target``. Elsewhere the old directory is renamed aside first (see the module docstring).
    An existing *file* at ``target`` is refused with :class:`OutputError`.
    """
    new, target = Path(new), Path(target)
    try:
        if not os.path.lexists(target):
            os.rename(new, target)
            return target
        if not target.is_dir() or target.is_symlink():
            raise OutputError(f"{what} {str(target)!r} exists and is not a directory; not replaced")
        if _exchange(new, target):
            shutil.rmtree(new, ignore_errors=True)
            return target
        old = _tmp_name(target, "old")
        os.rename(target, old)
        try:
            os.rename(new, target)
        except BaseException:
            os.rename(old, target)
            raise
        shutil.rmtree(old, ignore_errors=True)
        return target
    except OutputError:
        raise
    except OSError as exc:
        raise OutputError(f"{what} {str(target)!r}: cannot replace: {_reason(exc)}") from None
