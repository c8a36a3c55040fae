"""The commands (``build``, ``check``, ``diff``, ``serve``, ``introspect``, ``translations``):
how the stages are wired, and the command line.  Nothing below imports from here.
"""
