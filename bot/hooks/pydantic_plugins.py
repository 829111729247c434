"""The hook runs no pydantic plugins, and so skips looking for them (its start is on a
person's path: it runs before every gated tool call).

pydantic looks for plugins (entry points of the `pydantic` distribution group) the first time
it builds a validator, in `pydantic.plugin._loader`, which imports `importlib.metadata` — and
with it zipfile, email, csv, tempfile, shutil, bz2, lzma — then reads every installed
distribution's entry points: about 8% of the hook's work up to its first byte to the relay
(bench/README.md). pydantic's own switch (`PYDANTIC_DISABLE_PLUGINS`) skips the reading but
not the imports, so the hook puts a loader that finds no plugins in that module's place.

Only in the hook's process, and only before pydantic has loaded its own loader: a process
that already built a validator (a test run, say) is left as it is. Should pydantic rename
the module, this stand-in is never imported and pydantic looks for plugins as before;
tests/bot/test_start_up.py runs the hook end to end, so a renamed function would show there.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from types import ModuleType
from typing import Final

LOADER: Final = "pydantic.plugin._loader"


def _no_plugins() -> Iterable[object]:
    return ()


def skip_plugin_discovery() -> bool:
    """Stand in for pydantic's plugin loader (no plugins) unless it is loaded already;
    whether it did."""
    if LOADER in sys.modules:
        return False
    stand_in = ModuleType(LOADER, "The hook's pydantic plugin loader: no plugins.")
    stand_in.get_plugins = _no_plugins  # type: ignore[attr-defined]
    sys.modules[LOADER] = stand_in
    return True
