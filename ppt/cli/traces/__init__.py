"""The commands on traces: ``ppt record`` (keep a real MPI run's calls), ``ppt replay`` (predict a trace's
run time), ``ppt convert`` (write a trace in another form), ``ppt trace-info`` (what a trace holds) and
``ppt samples`` (the traces shipped with ppt)."""
