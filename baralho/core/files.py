"""Reading a file a user names: a regular file of bounded size, checked on the open file.

A path may name a device (a link to ``/dev/zero`` reads forever), a FIFO (opening it for
reading waits for a writer) or a folder; ``stat`` then ``open`` can be raced. The file is
opened first (non-blocking, so a FIFO does not wait), then its open descriptor is checked:
a regular file of at most ``max_bytes``, else an error naming the path and what it should be.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO


def open_regular(path: str | Path, max_bytes: int, what: str, error: type[Exception] = ValueError) -> BinaryIO:
    """``path`` opened for binary reading when it is a regular file of at most ``max_bytes``;
    else ``error`` (a ValueError by default) saying which file, what it should be and what it is."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise error(f"{path}: missing or not a regular file ({what}: no such file)") from None
    except OSError as err:
        raise error(f"{path}: cannot open {what} ({err.strerror or err})") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise error(f"{path}: missing or not a regular file ({what}: this is a device, a pipe or a folder)")
    if info.st_size > max_bytes:
        os.close(fd)
        raise error(f"{path}: {what} is {info.st_size:,} bytes, over the {max_bytes:,} it may be")
    return os.fdopen(fd, "rb")


def read_regular(path: str | Path, max_bytes: int, what: str, error: type[Exception] = ValueError) -> bytes:
    """The bytes of ``path`` (see :func:`open_regular`), read bounded: a file that grew past
    ``max_bytes`` since it was opened is refused too."""
    with open_regular(path, max_bytes, what, error) as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise error(f"{path}: {what} is over the {max_bytes:,} bytes it may be")
    return data
