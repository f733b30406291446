#!/usr/bin/env bash
# Every relative link in README.md, docs/ and deploy/README.md must name a file or folder that exists, and a
# #fragment must name a heading of the target page (GitHub's slugs). Usage: docs/check-links.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bad=0; count=0
slugs() { # GitHub heading anchors of a markdown file, one per line
  grep -E '^#{1,6} ' "$1" | sed -E 's/^#+ +//' | tr 'A-Z' 'a-z' | sed -E 's/`//g; s/[^a-z0-9 _-]//g; s/ /-/g'
}
for file in README.md docs/*.md deploy/README.md; do
  dir=$(dirname "$file")
  # [text](target): targets without a scheme; code spans are removed first.
  while IFS= read -r target; do
    count=$((count + 1))
    path=${target%%#*}; fragment=${target#"$path"}; fragment=${fragment#\#}
    resolved=$file
    if [ -n "$path" ]; then resolved="$dir/$path"; fi
    if [ ! -e "$resolved" ]; then echo "BROKEN  $file → $target (no $resolved)"; bad=$((bad + 1)); continue; fi
    if [ -n "$fragment" ] && [ -f "$resolved" ] && ! slugs "$resolved" | grep -qx -- "$fragment"; then
      echo "BROKEN  $file → $target (no heading #$fragment in $resolved)"; bad=$((bad + 1))
    fi
  done < <(sed -E 's/`[^`]*`//g' "$file" | grep -oE '\]\([^)[:space:]]+\)' | sed -E 's/^\]\(//; s/\)$//' | grep -vE '^[a-z]+:' || true)
done
echo "$count relative links checked, $bad broken"
[ "$bad" -eq 0 ]
