"""The systems and the tool itself: ``ppt systems`` (the built-in presets), ``ppt describe`` (a preset's
keys and values), ``ppt calibrate`` (this host's preset, measured) and ``ppt bench`` (ppt's own speed)."""
