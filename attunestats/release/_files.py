"""Finding and decoding the files of a release directory (private helper of ``release/load.py``).

:func:`scan` lists the files to read and, as warnings, every entry it skips: hidden files, backup
files, wrong extensions or names, symbolic links (never followed), FIFOs, sockets and devices
(never opened), directories where files are expected, files outside a predictor directory; a
name that is not UTF-8 is an error (it could be no id, predictor or path of the tables).
:func:`parse` decodes one file's bytes (UTF-8; a UTF-8 byte order mark and UTF-16/32 text are
read correctly, with a warning; anything else is rejected with a clear error) and parses the JSON,
reporting every key repeated inside one object (an error: JSON readers disagree on which value
wins).
"""

from __future__ import annotations

import codecs
import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic_core import from_json

from attunestats.release.check import Finding, json_path

_CONV_FILE = re.compile(r"^conversation_(.+)\.json$")
#: a ground-truth file name the reader skips but a user meant (hidden, upper case, backup)
_SKIPPED_CONV_FILE = re.compile(r"(?i)^\.?conversation_(.+?)\.json\W*$")
_BACKUP = re.compile(r"(~|\.(bak|orig|swp|swo|tmp|old|backup))$", re.IGNORECASE)
#: Entries of the release root that are part of the layout or known companions.
ROOT_ENTRIES = ("release.json", "conversations", "runs", "Test Samples", "truth.json")


@dataclass(frozen=True)
class Entry:
    """A file to read: path relative to the root, absolute path, kind, predictor."""

    rel: str
    path: Path
    kind: str  # "info" | "gt" | "run"
    predictor: str = ""


def conversation_id_of_skipped(rel: str) -> str | None:
    """The conversation id a skipped file's name stands for (``conversation_5.JSON`` -> ``5``),
    so that an error about a run of that conversation can name the skipped file; else None."""
    m = _SKIPPED_CONV_FILE.match(rel.rsplit("/", 1)[-1])
    return m.group(1) if m else None


def _warn(rel: str, message: str, rule: str = "skipped_file") -> Finding:
    shown = rel.encode("utf-8", "backslashreplace").decode("utf-8")  # a name that is not UTF-8
    return Finding(shown, "", message, "", rule, "warning")


def _not_unicode(rel: str) -> Finding | None:
    """An error if the name holds bytes that are not UTF-8 (``os.scandir`` keeps them as lone
    surrogates: no id, predictor or table can hold them), shown escaped; else None."""
    shown = rel.encode("utf-8", "backslashreplace").decode("utf-8")
    if shown == rel:
        return None
    return Finding(shown, "", "the name is not valid UTF-8; rename it (it is not read)", "",
                   "unreadable", "error")  # fmt: skip


def _odd(entry: os.DirEntry[str], rel: str, *, want: str) -> Finding | None:
    """A warning if ``entry`` is not a plain ``want`` ("file" or "dir"), or an error if its name
    is not UTF-8; else None."""
    bad_name = _not_unicode(rel)
    if bad_name is not None:
        return bad_name
    if entry.is_symlink():
        return _warn(rel, "symbolic link skipped (the reader does not follow links)")
    mode = entry.stat(follow_symlinks=False).st_mode
    if want == "file" and stat.S_ISDIR(mode):
        return _warn(rel, "directory skipped (a file was expected here)")
    if want == "dir" and stat.S_ISREG(mode):
        return _warn(rel, "file skipped (only predictor directories are read here)")
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        kind = "FIFO" if stat.S_ISFIFO(mode) else "socket" if stat.S_ISSOCK(mode) else "device"
        return _warn(rel, f"not a regular file ({kind}) skipped")
    return None


def _why_skipped(name: str, *, expected: str) -> str:
    if name.startswith("."):
        return "hidden file skipped"
    if _BACKUP.search(name):
        return "backup file skipped"
    if expected == "conversation" and _CONV_FILE.match(name.lower()):
        return "skipped: the name must be exactly conversation_<N>.json (lower case)"
    if name.lower().endswith(".json"):
        return "skipped: the extension must be exactly .json (lower case)"
    if expected == "conversation":
        return "skipped: not a ground-truth file name (conversation_<N>.json)"
    return "skipped: not a .json run file"


def _sorted_entries(folder: Path) -> list[os.DirEntry[str]]:
    with os.scandir(folder) as it:
        return sorted(it, key=lambda e: e.name)


def scan(root: Path, gt_dir: Path | None) -> tuple[list[Entry], list[str], list[Finding]]:
    """Files to read, predictor directories, and a warning for every entry skipped (an error for
    a name that is not UTF-8)."""
    found: list[Entry] = []
    skipped: list[Finding] = []
    info = root / "release.json"
    if info.is_file() and not info.is_symlink():
        found.append(Entry("release.json", info, "info"))
    elif os.path.lexists(info):
        skipped.append(_warn("release.json", "release.json is not a regular file; skipped (the "
                             "release is read as real data, not labelled SIMULATED)"))  # fmt: skip
    if not os.path.lexists(info) and os.path.lexists(root / "truth.json"):
        skipped.append(_warn("truth.json", "a simulator's truth file without release.json: the "
                             "release is read as real data (results are not labelled SIMULATED)",
                             "info_default"))  # fmt: skip
    for entry in _sorted_entries(root):
        if entry.name in ROOT_ENTRIES or entry.name.startswith("."):
            continue
        from attunestats.release.schema import close_key

        match = close_key(entry.name, list(ROOT_ENTRIES), cutoff=0.75)
        if match is not None and not (root / match).exists():
            skipped.append(_warn(entry.name, f"not read: not part of the release layout; did you "
                                 f"mean {match!r}?", "ignored_entry"))  # fmt: skip
    if gt_dir is not None:
        gt_rel = gt_dir.relative_to(root).as_posix()
        for entry in _sorted_entries(gt_dir):
            rel = f"{gt_rel}/{entry.name}"
            odd = _odd(entry, rel, want="file")
            if odd is not None:
                skipped.append(odd)
            elif _CONV_FILE.match(entry.name) and not entry.name.startswith("."):
                found.append(Entry(rel, Path(entry.path), "gt"))
            else:
                skipped.append(_warn(rel, _why_skipped(entry.name, expected="conversation")))
    run_dirs: list[str] = []
    runs_root = root / "runs"
    if runs_root.is_dir():
        for entry in _sorted_entries(runs_root):
            rel = f"runs/{entry.name}"
            if entry.name.startswith("."):
                skipped.append(_warn(rel, "hidden entry skipped"))
                continue
            odd = _odd(entry, rel, want="dir")
            if odd is not None:
                skipped.append(odd)
                continue
            run_dirs.append(entry.name)
            _scan_runs(Path(entry.path), rel, entry.name, found, skipped)
    found.sort(key=lambda e: e.rel)
    return found, run_dirs, skipped


def _scan_runs(folder: Path, rel: str, predictor: str, found: list[Entry],
               skipped: list[Finding]) -> None:  # fmt: skip
    for entry in _sorted_entries(folder):
        sub = f"{rel}/{entry.name}"
        if entry.name.startswith("."):
            skipped.append(_warn(sub, "hidden entry skipped"))
            continue
        bad_name = _not_unicode(sub)
        if bad_name is not None:
            skipped.append(bad_name)
            continue
        if entry.is_dir(follow_symlinks=False):
            _scan_runs(Path(entry.path), sub, predictor, found, skipped)
            continue
        odd = _odd(entry, sub, want="file")
        if odd is not None:
            skipped.append(odd)
        elif entry.name.endswith(".json"):
            found.append(Entry(sub, Path(entry.path), "run", predictor))
        else:
            skipped.append(_warn(sub, _why_skipped(entry.name, expected="run")))


# --- decoding and parsing -------------------------------------------------------------------------


class _Pairs(list):  # type: ignore[type-arg]
    """An object kept as its list of pairs, to find where a key repeats."""


def _duplicates(value: Any, loc: tuple[Any, ...], out: list[tuple[str, str]]) -> Any:
    """Rebuild plain values from ``_Pairs`` (last value wins), listing repeated keys."""
    if isinstance(value, _Pairs):
        seen: set[str] = set()
        result = {}
        for key, item in value:
            if key in seen:
                out.append((json_path((*loc, key)), key))
            seen.add(key)
            result[key] = _duplicates(item, (*loc, key), out)
        return result
    if isinstance(value, list):
        return [_duplicates(v, (*loc, i), out) for i, v in enumerate(value)]
    return value


_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"),
)  # fmt: skip


def decode(rel: str, data: bytes) -> tuple[str | None, list[Finding]]:
    """The text of a file; a warning for a byte order mark or UTF-16/32, an error if undecodable."""
    encoding = "utf-8"
    for bom, name in _BOMS:
        if data.startswith(bom):
            encoding = name
            break
    else:
        if len(data) >= 2 and (data[0] == 0 or data[1] == 0):
            encoding = json.detect_encoding(data)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        bad = data[exc.start : exc.start + 1].hex()
        what = "UTF-8" if encoding == "utf-8" else encoding.upper()
        return None, [Finding(rel, "", f"not valid {what} text (byte 0x{bad} at offset "
                              f"{exc.start}); save the file as UTF-8", "", "unreadable", "error")]  # fmt: skip
    if encoding == "utf-8":
        return text, []
    what = {"utf-8-sig": "starts with a UTF-8 byte order mark (ignored)"}.get(
        encoding, f"is {encoding.upper().replace('-LE', '').replace('-BE', '')} text, read as such"
    )
    return text, [Finding(rel, "", f"the file {what}; the official tools write plain UTF-8",
                          "", "encoding", "warning")]  # fmt: skip


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_ESCAPED_QUOTE_KEY = re.compile(r'\\"\s*:')
_SPACED_KEY = re.compile(r'"\s+:')
_ESCAPED_QUOTE_KEY_B = re.compile(rb'\\"\s*:')
_SPACED_KEY_B = re.compile(rb'"\s+:')
_SURROGATE_ESCAPE_B = re.compile(rb"\\u[dD][89a-fA-F]")
_INVALID = object()


def _plain_utf8(data: bytes) -> bool:
    """Bytes that may be UTF-8 JSON as they are: no byte order mark, no NUL in the first two
    bytes (UTF-16/32), no unpaired-surrogate escape (those take the exact path)."""
    if data.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        return False
    if len(data) >= 2 and (data[0] == 0 or data[1] == 0):
        return False
    return not _SURROGATE_ESCAPE_B.search(data)


def _count_keys(doc: Any) -> int:
    n = 0
    stack = [doc]
    pop, push = stack.pop, stack.extend
    while stack:
        value = pop()
        if type(value) is dict:
            n += len(value)
            push(value.values())
        elif type(value) is list:
            push(value)
    return n


def _no_duplicate_keys(text: str | bytes, doc: Any) -> bool:
    """True when the text has as many keys as the parsed document (no key was repeated).

    A key ends with a quote, optional white space and a colon; inside a JSON string a quote is
    escaped, so counting those ends counts the keys exactly unless an escaped quote is followed
    by a colon (then the caller parses again, slowly and exactly). ``text`` is the decoded text
    or the UTF-8 bytes (the same count: these characters are ASCII).
    """
    if isinstance(text, bytes):
        if b"\\" in text and _ESCAPED_QUOTE_KEY_B.search(text):
            return False
        tokens = text.count(b'":') + len(_SPACED_KEY_B.findall(text))
        return tokens == _count_keys(doc)
    if "\\" in text and _ESCAPED_QUOTE_KEY.search(text):
        return False
    tokens = text.count('":') + len(_SPACED_KEY.findall(text))
    return tokens == _count_keys(doc)


def parse(rel: str, data: bytes) -> tuple[Any, list[Finding], bool]:
    """(document, findings, ok): decode and parse one file; ``ok`` False if it cannot be read.

    The fast path parses with pydantic-core's JSON reader (repeated short strings shared, about
    half the memory of :func:`json.loads`), straight from the bytes of a UTF-8 file (no decoded
    copy of the text), and checks that no key repeats by counting keys in the text; text with
    unpaired surrogate escapes, or whose count disagrees, is parsed again by :func:`json.loads`,
    which finds where a key repeats. Other encodings, and bytes that are not valid UTF-8, go
    through :func:`decode` (which names the offending byte).
    """
    if _plain_utf8(data):
        try:
            doc = from_json(data, cache_strings="all")
        except ValueError:
            doc = _INVALID
        if doc is not _INVALID and _no_duplicate_keys(data, doc):
            return doc, [], True
    text, findings = decode(rel, data)
    if text is None:
        return None, findings, False
    if not _SURROGATE_ESCAPE.search(text):
        try:
            doc = from_json(text, cache_strings="all")
        except ValueError as exc:
            findings.append(Finding(rel, "", f"unreadable JSON: {exc}", "", "unreadable", "error"))
            return None, findings, False
        if _no_duplicate_keys(text, doc):
            return doc, findings, True
    try:
        pairs = json.loads(text, object_pairs_hook=_Pairs)
    except (ValueError, RecursionError) as exc:
        findings.append(Finding(rel, "", f"unreadable JSON: {exc}", "", "unreadable", "error"))
        return None, findings, False
    dups: list[tuple[str, str]] = []
    doc = _duplicates(pairs, (), dups)
    for path, key in dups:
        findings.append(Finding(rel, path, f"duplicate key {key!r} in one JSON object (readers "
                                "disagree on which value wins)", "", "duplicate_key", "error"))  # fmt: skip
    return doc, findings, True
