"""The commands that predict a run's time: ``ppt run`` (a model script), ``ppt exec`` (an mpi4py program),
``ppt snap`` and ``ppt app`` (the application models' strong scaling), ``ppt scale`` and ``ppt sweep``
(any of them over rank counts, systems and parameters) and ``ppt validate`` (a real run against
``ppt exec``'s prediction)."""
