from ghostbook.cli import main

raise SystemExit(main())
