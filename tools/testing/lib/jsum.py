#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""jsum.py KEY FILE...

Prints the sum of a numeric field over several JSON files (topo.sh's
jsum)."""

import json, sys
print(sum(json.load(open(f))[sys.argv[1]] for f in sys.argv[2:]))
