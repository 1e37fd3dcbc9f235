"""PPT: performance prediction of MPI applications on simulated supercomputers."""


def __getattr__(name):
    if name == "__version__":            # read once, when asked (setup.cfg's version, see ppt.provenance)
        from ppt.provenance import version
        return version()
    raise AttributeError(f"module 'ppt' has no attribute {name!r}")
