"""Imports every topology module so each registers its kind."""
import importlib

for _name in ("torus", "gemini", "bgq", "dragonfly", "aries", "fattree", "slimfly"):
    try:
        importlib.import_module(f"ppt.interconnects.{_name}")
    except ModuleNotFoundError as exc:  # a topology not written yet
        if exc.name != f"ppt.interconnects.{_name}":
            raise
