"""The ``ppt`` command line: one module per subcommand, in the room of what it is about.

``predict/`` holds the commands that predict a run's time, ``traces/`` those on
traces, ``network/`` the network studies and ``tool/`` the systems and the tool
itself.  Beside them, the shared plumbing the commands import: ``output``
(tables and JSON), ``common`` (arguments shared by commands), ``jobmix``
(``--job-list``) and ``parser`` (the command line's parser and the commands'
registry); ``main`` runs a command line.
"""
