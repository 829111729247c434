"""Suite-wide settings: our tests talk only to 127.0.0.1."""

import os

# slack_sdk honours HTTP(S)_PROXY but not NO_PROXY, so a proxy in the environment would
# swallow every call to the local emulator.
for _name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
    os.environ.pop(_name, None)
