#!/bin/sh
# Rebuild static/editor/vendor/codemirror.js from the npm registry (versions pinned in
# package-lock.json). Usage: sh policyeditor/editor/frontend/build.sh  (needs node and npm).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../../../static/editor/vendor/codemirror.js"
work=$(mktemp -d)
cp "$here/package.json" "$here/package-lock.json" "$here/cel-codemirror.js" "$here/yaml-codemirror.js" "$here/build.mjs" "$work/"
cd "$work"
# esbuild's platform binary is an optional dependency: no install script has to run.
npm ci --no-audit --no-fund --ignore-scripts
node build.mjs "$out"
rm -rf "$work"
