"""The hook's stand-in for pydantic's plugin loader (bot/hooks/pydantic_plugins.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from bot.hooks.pydantic_plugins import LOADER, skip_plugin_discovery


def test_a_process_whose_pydantic_has_built_validators_is_left_as_it_is() -> None:
    real = sys.modules[LOADER]  # this test process built validators long ago
    assert skip_plugin_discovery() is False
    assert sys.modules[LOADER] is real


def test_a_fresh_process_builds_and_validates_models_without_importlib_metadata() -> None:
    script = textwrap.dedent(
        """
        import sys
        from bot.hooks.pydantic_plugins import skip_plugin_discovery
        assert skip_plugin_discovery() is True
        from pydantic import BaseModel, ValidationError
        class Ask(BaseModel):
            question: str
        assert Ask.model_validate_json('{"question": "Ship it?"}').question == "Ship it?"
        try:
            Ask.model_validate({"question": 1})
        except ValidationError as error:
            print(error.errors()[0]["type"])
        print("importlib.metadata" in sys.modules)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["string_type", "False"]
