#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""jget.py FILE KEY[.KEY...]

Prints one value of a JSON file (topo.sh's jget)."""

import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v = v[k]
print(v)
