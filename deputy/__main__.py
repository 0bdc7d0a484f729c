from deputy.cli import main

raise SystemExit(main())
