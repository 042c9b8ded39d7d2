#!/usr/bin/env bash
# Regenerates the configuration table in README.md from libs/config's schema.
set -euo pipefail
cd "$(dirname "$0")/.."
table="$(npm run -s cli -- config table)"
TABLE="$table" python3 - <<'PY'
import os, re
path = 'README.md'
text = open(path).read()
start, end = '<!-- config-table:start -->', '<!-- config-table:end -->'
text = re.sub(re.escape(start) + '.*?' + re.escape(end), start + '\n' + os.environ['TABLE'] + '\n' + end, text, flags=re.S)
open(path, 'w').write(text)
PY
