"""`python -m bot`."""

from .cli import main

raise SystemExit(main())
