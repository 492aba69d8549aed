import sys

from baralho.cli import main

sys.exit(main())
