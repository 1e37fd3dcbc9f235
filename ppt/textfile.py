"""Input files read as text: one line for a folder, an unreadable file or a binary one, where reading
it would otherwise raise deep inside."""
from __future__ import annotations

from pathlib import Path

from ppt.errors import PPTError


def read_text_bytes(path: str, what: str, folder_hint: str = "not a file") -> bytes | None:
    """The bytes of text file ``path`` (``what`` names it in errors), or None if it does not exist.

    PPTError when it is a folder (``folder_hint`` says what to give instead), cannot be read, or holds a
    NUL byte (a binary file)."""
    file = Path(path)
    if file.is_dir():
        raise PPTError(f"{what} {path}: is a folder, {folder_hint}")
    if not file.exists():
        return None
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise PPTError(f"{what} {path}: cannot be read: {exc.strerror or exc}") from None
    if b"\0" in data:
        raise PPTError(f"{what} {path}: is a binary file, not text")
    return data
