"""`provider/__init__.py`: every exported name, each loaded from its module on first use."""

from __future__ import annotations

import subprocess
import sys
from importlib import import_module

import pytest

import provider


def test_every_exported_name_is_the_object_its_module_defines() -> None:
    homes = provider._HOME  # the name → module table the lazy loading reads
    assert set(homes) == set(provider.__all__)
    misplaced = {
        name
        for name in provider.__all__
        if getattr(provider, name) is not getattr(import_module(f"provider.{homes[name]}"), name)
    }
    assert misplaced == set()
    assert set(provider.__all__) <= set(dir(provider))


def test_importing_the_package_loads_none_of_its_modules() -> None:
    # The hook imports `provider` before every gated tool call: it pays for what it uses only.
    script = "import sys, provider\nprint('\\n'.join(sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    loaded = set(done.stdout.split())
    assert {name for name in loaded if name.startswith("provider.")} == set()
    assert {name.split(".")[0] for name in loaded} & {"pydantic", "aiohttp"} == set()


def test_a_name_is_loaded_with_its_module_only() -> None:
    script = "import sys\nfrom provider import Agent\nprint('\\n'.join(sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    loaded = {name for name in done.stdout.split() if name.startswith("provider.")}
    assert loaded == {"provider.agents"}


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchName'"):
        provider.NoSuchName  # noqa: B018
