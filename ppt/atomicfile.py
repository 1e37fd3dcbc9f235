"""Output files written whole or not at all: readers see the old file or the whole new one, and a failed
write (a full disk, a folder that cannot be written) leaves nothing behind and is a one-line PPTError.
A device or a pipe named as the output (``/dev/stdout``) is written in place, as a shell redirection
writes it: renaming a file over it would replace the device."""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path


def umask() -> int:
    """The process's file-creation mask (reading it means setting it: it is set back at once)."""
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_output(path: str, option: str, suffix: str | None = None):
    """Yield a temporary path beside ``path`` (same suffix, or ``suffix`` if it has none, so writers that
    choose a format by it still do) and
    rename it to ``path`` when the block ends well: readers see the old file or the whole new one.
    On any error the temporary file is removed, and an OSError (a full disk, ...) becomes a
    one-line PPTError naming ``option``."""
    from ppt.errors import PPTError
    target = Path(path)
    if _is_special(target):             # a device or a pipe (/dev/stdout): written in place, never replaced
        try:
            yield str(target)
        except OSError as exc:
            raise PPTError(f"{option} {path}: cannot write it ({exc.strerror or exc})") from None
        return
    try:
        handle, tmp = tempfile.mkstemp(dir=target.parent if str(target.parent) else ".",
                                       prefix=f".{target.name}.", suffix=target.suffix or suffix or ".tmp")
        os.close(handle)
        os.chmod(tmp, 0o666 & ~umask())     # the mode a plain open() would give, not mkstemp's 0600
    except OSError as exc:
        raise PPTError(f"{option} {path}: cannot write there ({exc.strerror or exc}); "
                       f"choose a writable path") from None
    try:
        yield tmp
        os.replace(tmp, target)
    except OSError as exc:
        raise PPTError(f"{option} {path}: cannot write it ({exc.strerror or exc}); nothing was written") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def check_new_folder(folder: str, hint: str = "give a new one") -> str:
    """ConfigError unless ``folder`` is new or an empty folder whose parent exists; returns the parent."""
    from ppt.errors import ConfigError
    if os.path.exists(folder) and (not os.path.isdir(folder) or os.listdir(folder)):
        raise ConfigError(f"{folder} exists and is not an empty folder: {hint}")
    parent = os.path.dirname(os.path.abspath(folder))
    if not os.path.isdir(parent):
        raise ConfigError(f"cannot write {folder}: folder {parent} does not exist")
    return parent


@contextlib.contextmanager
def atomic_folder(folder, prefix: str = ".tmp-"):
    """Yield a new temporary folder beside ``folder`` (new, or empty: :func:`check_new_folder`) and rename it
    to ``folder`` when the block ends well; on any error it is removed: the folder is whole or absent."""
    folder = os.fspath(folder)
    tmp = tempfile.mkdtemp(prefix=prefix, dir=check_new_folder(folder))
    try:
        yield tmp
        os.chmod(tmp, 0o777 & ~umask())     # the mode a plain mkdir would give, not mkdtemp's 0700
        if os.path.isdir(folder):
            os.rmdir(folder)
        os.rename(tmp, folder)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _is_special(path: Path) -> bool:
    """Whether ``path`` exists as something other than a regular file or a folder (a device, a pipe)."""
    try:
        return path.exists() and not path.is_file() and not path.is_dir()
    except OSError:
        return False


def write_text_atomic(path: str, text: str, option: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (see :func:`atomic_output`)."""
    with atomic_output(path, option) as tmp:
        with open(tmp, "w") as out:
            out.write(text)
