"""Stage 8 (beside publish), the render cache: data only, it makes a rebuild faster and never changes a byte.

:mod:`~generator.cache.store` is the cache a build opens; :mod:`~generator.cache.keys` says what a
key covers; :mod:`~generator.cache.trust` decides whether a directory may hold a cache at all.
"""
