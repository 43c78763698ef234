#!/usr/bin/env bash
# Makes an AppCDS archive for the broker, so a fresh process starts and warms up faster (docs/benchmarks.md#warm-up):
# starts the jar with -XX:ArchiveClassesAtExit on a scratch data directory, sends it the requests a broker serves
# (REST create, read, list, answer; an MCP initialize) so their classes are archived too, and stops it.
#   scripts/cds-archive.sh [jar] [archive]     (defaults: target/ark-broker.jar target/ark-broker.jsa)
#   java -XX:SharedArchiveFile=target/ark-broker.jsa -jar target/ark-broker.jar
# The archive fits only the JVM that made it; with another one the JVM says so and runs without it.
# Needs only bash and java (the Docker image runs it at build time).
set -euo pipefail
jar=${1:-target/ark-broker.jar}
archive=${2:-target/ark-broker.jsa}
port=${CDS_TRAINING_PORT:-18080}
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT

HTTP_HOST=127.0.0.1 HTTP_PORT=$port MCP_HOST=127.0.0.1 MCP_PORT=$((port + 1)) STORE_DATA_DIR=$data LOG_LEVEL=WARN \
  KUBE_ENABLED=false SHUTDOWN_DELAY_SECONDS=0 java -Xlog:cds=off -XX:ArchiveClassesAtExit="$archive" -jar "$jar" &
broker=$!

# One HTTP/1.1 request over bash's /dev/tcp; prints the response.
request() {
  local target_port=$1 method=$2 path=$3 body=${4:-}
  exec 3<>"/dev/tcp/127.0.0.1/$target_port"
  printf '%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
    "$method" "$path" "${#body}" "$body" >&3
  cat <&3
  exec 3<&-
}

for _ in $(seq 1 600); do
  if request "$port" GET /readyz 2>/dev/null | head -1 | grep -q ' 200'; then
    break
  fi
  sleep 0.1
done
for i in $(seq 1 200); do
  id=$(request "$port" POST /questions "{\"recipient\":\"ark://users/training\",\"sender\":\"ark://agents/training\",\"content\":\"Training $i?\",\"options\":[\"yes\",\"no\"]}" \
    | grep -o '"id":"[^"]*"' | head -1 | cut -d'"' -f4)
  request "$port" GET "/questions/$id" >/dev/null
  request "$port" PATCH "/questions/$id" '{"response":"yes"}' >/dev/null
done
request "$port" GET '/questions?recipient=ark://users/training&limit=10' >/dev/null
request $((port + 1)) POST /mcp '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"training","version":"1"}}}' >/dev/null
kill -TERM "$broker"
wait "$broker" || true
test -s "$archive"
echo "wrote $archive"
