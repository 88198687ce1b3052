"""`python -m headdiv.cli`: the `headdiv` command."""

from headdiv.cli import main

raise SystemExit(main())
