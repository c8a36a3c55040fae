"""Stage 6, the documentation model: tool, prompt and resource docs, client configurations,
slugs, pages and :func:`~generator.model.gather.gather`.

Everything a page shows is decided here, with no HTML and no files.
"""
