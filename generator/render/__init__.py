"""Stage 7, rendering: Jinja over ``templates/`` and ``locales/``, with one escaper per output
context, and the hosting files.

A pure function of (model, locale, templates): it never touches the file system's output.
"""
