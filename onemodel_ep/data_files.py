"""External data files on disk: where a tensor's location may point, and copying a data file beside a model.

A location is legal where both ONNX Runtime and onnx load it: a relative path without `..` that, with every
symbolic link followed, stays inside the model's folder, naming a regular file that is not itself a symbolic
link (ORT refuses an escape, "External data path escapes model directory"; onnx refuses a symbolic link and
a file with several hard links, "a potential hardlink attack"). So a data file placed beside a rewritten
model in another folder is a copy (a reflink where the file system has them, holes kept), never a link.
"""

from __future__ import annotations

import errno
import filecmp
import os
import stat
from pathlib import Path

# ioctl FICLONE (linux/fs.h): the destination shares the source's blocks, copy-on-write (Btrfs, XFS).
_FICLONE = 0x40049409
_CHUNK = 1 << 23


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def relative(location: str) -> Path:
    """`location` as a relative path without `..`; a ValueError otherwise."""
    p = Path(location)
    if not location or p.is_absolute() or ".." in p.parts or "\0" in location:
        raise ValueError(f"external data location {location!r} is not a path inside the model's folder")
    return p


def resolve(folder: Path, location: str) -> Path:
    """The data file that `location` names for a model in `folder`, all symbolic links followed: a
    ValueError where it leaves the folder, is a symbolic link or is not a regular file (a FIFO, a device:
    never opened, so a FIFO cannot block), FileNotFoundError where it does not exist."""
    base = folder.resolve()
    path = base / relative(location)
    if path.is_symlink():
        raise ValueError(f"external data location {location!r} is a symbolic link ({path}); onnx refuses it")
    real = path.resolve()
    if real != base and base not in real.parents:
        raise ValueError(
            f"external data location {location!r} resolves to {real}, outside the model's folder {base}"
        )
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"external data file {path} (location {location!r}) does not exist") from None
    if not stat.S_ISREG(mode):
        raise ValueError(f"external data location {location!r} is {_kind(mode)}, not a regular file ({path})")
    return real


def _copy_range(fi: int, fo: int, start: int, end: int) -> None:
    while start < end:
        data = os.pread(fi, min(_CHUNK, end - start), start)
        if not data:
            return
        os.pwrite(fo, data, start)
        start += len(data)


def _copy_into(fi: int, fo: int) -> None:
    """Copy the open file `fi` into the empty file `fo`: a reflink where the file system can, else its data
    segments (SEEK_DATA / SEEK_HOLE), so a sparse file stays sparse."""
    try:
        import fcntl

        fcntl.ioctl(fo, _FICLONE, fi)
        return
    except (ImportError, OSError):
        pass
    size = os.fstat(fi).st_size
    pos = 0
    while pos < size:
        try:
            data = os.lseek(fi, pos, os.SEEK_DATA)
            hole = os.lseek(fi, data, os.SEEK_HOLE)
        except OSError as e:
            if e.errno == errno.ENXIO:  # no data after pos: the rest is a hole
                break
            data, hole = pos, size  # no SEEK_DATA here: copy everything
        _copy_range(fi, fo, data, min(hole, size))
        pos = hole
    os.ftruncate(fo, size)


def copy(src: Path, dst: Path) -> None:
    """Copy the regular file `src` to the new file `dst` (which must not exist)."""
    fi = os.open(src, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    try:
        mode = os.fstat(fi).st_mode
        if not stat.S_ISREG(mode):  # swapped since resolve()
            raise ValueError(f"external data file {src} is {_kind(mode)}, not a regular file")
        fo = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
        try:
            _copy_into(fi, fo)
        except BaseException:
            os.close(fo)
            os.unlink(dst)
            raise
        os.close(fo)
    finally:
        os.close(fi)


def place(src: Path, folder: Path, location: str) -> None:
    """Make `location` under `folder` (a rewritten model's) a copy of the data file `src` (from resolve).

    A copy already there is kept; a hard link to `src` (as earlier versions made) is replaced by a copy; any
    other file, or a symbolic link, in the way is an error (FileExistsError), as is a location that would
    lead out of `folder` through a symbolic link there."""
    base = folder.resolve()
    dst = base / relative(location)
    dst.parent.mkdir(parents=True, exist_ok=True)
    parent = dst.parent.resolve()
    if parent != base and base not in parent.parents:
        raise FileExistsError(f"{dst.parent} leads outside {base} (a symbolic link is in the way)")
    if os.path.lexists(dst):
        if dst.is_symlink() or not dst.is_file():
            raise FileExistsError(f"{dst} exists and is not the external data file {src} (remove it)")
        if os.path.samefile(src, dst):
            tmp = dst.with_name(dst.name + ".onemodel-copy")
            copy(src, tmp)
            os.replace(tmp, dst)
            return
        if filecmp.cmp(src, dst, shallow=False):
            return
        raise FileExistsError(f"{dst} exists and is not the external data file {src} (remove it)")
    copy(src, dst)
