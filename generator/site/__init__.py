"""Stage 9, producing a site: every page rendered (in worker processes), ``llms-full.txt``, the search index.

Writes into the staging directory that :mod:`generator.publish` then puts in place, and takes
unchanged pages from :mod:`generator.cache`.
"""
