"""The archive a kept run's records travel in: one tar per folder of results/reference/, xz-compressed, which is
about 40 % smaller than gzip on these JSON lines (an H200 run's 47 MB of records: 13.4 MB as .tar.gz, 7.7 MB as
.tar.xz), so that the project's tree, reference runs included, stays small enough to copy to a lent machine.
`tar xJf records.tar.xz` unpacks one; Python's tarfile reads it as it is."""
import errno
import io
import json
import lzma
import os
import tarfile
import tempfile
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterator, List

from portability_harness.records import store

from runner.errors import UserError

ARCHIVE = "records.tar.xz"
# What reading a damaged archive raises: a TarError or OSError where its header or members are wrong, EOFError where
# it is cut short, and the decompressor's own error where its compressed data is damaged inside (tarfile detects the
# compression by itself, so an archive gzip-compressed under this name raises zlib's). Neither reader lets one of
# these end its command: the atlas names the archive in a warning, the estimator goes on without that run.
DAMAGED = (tarfile.TarError, OSError, EOFError, lzma.LZMAError, zlib.error)

# Raw warm samples are most of a record's bytes; a kept case keeps their median, quartiles, minimum and interval.
RAW = ("warm_samples_s",)
LOG_MAX_BYTES = 300_000  # a TensorFlow cell's log is 1-2 MB of graph-mode notices; the others are well under


@dataclass
class Kept:
    path: Path
    kept: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)  # each "NAME (why)"


def keep(run: Path, dest: Path, log_max_bytes: int = LOG_MAX_BYTES) -> Kept:
    """Pack a run folder's records as DEST/records.tar.xz, the form results/reference/ keeps them in: every
    *.jsonl with each case's raw warm samples taken out, the workers' logs up to `log_max_bytes`. Whatever is
    left out is named, never dropped silently. An archive already at DEST is never replaced."""
    out = Kept(dest / ARCHIVE)
    if out.path.exists():
        raise FileExistsError(str(out.path))
    if dest.exists() and not dest.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "a file, not a folder", str(dest))
    files = sorted(p for p in run.iterdir() if p.is_file())
    dest.mkdir(parents=True, exist_ok=True)
    partial = out.path.with_suffix(".partial")  # renamed once whole: a stopped pack leaves no archive that reads short
    try:
        with tarfile.open(partial, "w:xz", preset=9) as tar:
            for p in files:
                stat = p.stat()
                if p.suffix not in (".jsonl", ".log"):
                    out.left_out.append(f"{p.name} (not a record or log)")
                    continue
                if p.suffix == ".log" and stat.st_size > log_max_bytes:
                    out.left_out.append(f"{p.name} (a log of {stat.st_size // 1000} KB)")
                    continue
                data = _without_raw(p, out.left_out) if p.suffix == ".jsonl" else p.read_bytes()
                info = tarfile.TarInfo(p.name)
                info.size, info.mtime = len(data), int(stat.st_mtime)
                tar.addfile(info, io.BytesIO(data))
                out.kept.append(p.name)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    os.replace(partial, out.path)
    return out


def archived(folder: Path) -> bool:
    """A folder kept as results/reference/ keeps one: its records in the ARCHIVE, none beside it."""
    return folder.is_dir() and (folder / ARCHIVE).is_file() and not any(folder.glob("*.jsonl"))


def unpack(folder: Path, scratch: Path) -> Path:
    """The folder's ARCHIVE unpacked into `scratch` (made if need be), which is returned; raises one of DAMAGED."""
    scratch.mkdir(parents=True, exist_ok=True)
    with tarfile.open(folder / ARCHIVE) as tar:
        tar.extractall(scratch, filter="data")  # "data": no member is written outside scratch, none as a link out
    return scratch


@dataclass
class Readable:
    paths: List[Path]  # what a reader of records reads in place of the paths it was given
    kept: Dict[Path, Path] = field(default_factory=dict)  # an unpacked archive's folder -> the kept folder it is of

    def named(self, note: str) -> str:
        """A note about a file of an unpacked archive names it as FOLDER/records.tar.xz: NAME."""
        for unpacked, folder in self.kept.items():
            note = note.replace(f"{unpacked}/", f"{folder / ARCHIVE}: ")
        return note


@contextmanager
def readable(paths: List[Path]) -> Iterator[Readable]:
    """`paths` with each kept folder's archive unpacked into a temporary folder, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="records-") as tmp:
        out = Readable([])
        for i, path in enumerate(paths):
            if not archived(path):
                out.paths.append(path)
                continue
            try:
                out.paths.append(unpack(path, Path(tmp) / str(i)))
            except DAMAGED as e:
                raise UserError(f"{path / ARCHIVE} cannot be unpacked ({e}); keep the run again with `runner keep`, "
                                "or pass the run's own results folder") from None
            out.kept[out.paths[-1]] = path
        yield out


def _without_raw(path: Path, left_out: list[str]) -> bytes:
    """The file's records, as the project's reader reads them (a torn last line and records written twice left out,
    named), each without its raw samples; a damaged line in the middle is the run's to mend, not the archive's to
    drop."""
    contents = store.read(str(path))
    if contents.damaged:
        raise ValueError(f"{path.name}: line {contents.damaged[0]} is not JSON (or not a record)")
    if contents.torn is not None:  # a worker killed while writing
        left_out.append(f"{path.name}: its torn last line ({len(contents.torn.encode())} bytes)")
    left_out += [f"{path.name}: {what} recorded again" for what in contents.duplicates]
    return "".join(json.dumps({k: v for k, v in r.items() if k not in RAW}, separators=(",", ":")) + "\n"
                   for r in contents.records).encode()
