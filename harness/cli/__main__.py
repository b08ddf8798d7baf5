"""``python -m harness.cli``: the ``bleu-harness`` program."""

import sys

from harness.cli.app import main

sys.exit(main())
