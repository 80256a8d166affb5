# Source this (`. scripts/use-node.sh`) to put the project's Node first on PATH: the major in .nvmrc
# (26, the active LTS). A machine that already runs that major keeps its own; otherwise the npm
# registry's `node` package (the official binary) is installed once into ~/.cache/mcp-schema-node-<major>.
# These machines come with Node 20, which reached end of life on 2026-04-30. Used by .ci/run and the
# README's first two commands.
_mcp_root=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)
_mcp_want=$(tr -d ' \nv' < "$_mcp_root/.nvmrc")
if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)" != "$_mcp_want" ]; then
  _mcp_prefix="${HOME:-/tmp}/.cache/mcp-schema-node-$_mcp_want"
  if [ ! -x "$_mcp_prefix/bin/node" ]; then
    echo "installing Node $_mcp_want (npm registry package node@$_mcp_want) into $_mcp_prefix" >&2
    npm install -g --prefix "$_mcp_prefix" --no-audit --no-fund --loglevel=error "node@$_mcp_want" >/dev/null || return 1 2>/dev/null || exit 1
  fi
  export PATH="$_mcp_prefix/bin:$PATH"
fi
echo "node $(node --version), npm $(npm --version)" >&2
unset _mcp_root _mcp_want _mcp_prefix
