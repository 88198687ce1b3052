"""`python -m headdiv.server.cli`: the `headdiv` command."""

from headdiv.server.cli import main

raise SystemExit(main())
