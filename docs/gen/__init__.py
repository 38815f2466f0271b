"""Pages generated from the sources at docs build time (the mkdocs hook in hooks.py)."""
