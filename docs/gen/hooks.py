"""mkdocs hook: adds the generated pages (environment variables, language reference, the
tutorials with their output) to the site at build time, so nothing generated is committed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gen import env_reference, language_reference, tutorial_pages


def on_files(files: Files, config: Any) -> Files:
    def add(uri: str, content: str | bytes) -> None:
        files.append(File.generated(config, uri, content=content))

    add("reference/environment.md", env_reference.render())
    add("reference/language.md", language_reference.render())
    for script in tutorial_pages.scripts():
        try:
            page = tutorial_pages.render(script)
        except RuntimeError as exc:  # a tutorial whose check fails must fail the build
            raise PluginError(str(exc)) from None
        add(f"tutorials/{script.stem}.md", page.markdown)
        for name, data in page.images.items():
            add(f"tutorials/{name}", data)
    return files
