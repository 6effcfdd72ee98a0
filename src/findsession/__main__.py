"""Allow ``python -m findsession``."""

from findsession.cli import main

raise SystemExit(main())
