#!/bin/sh
# Tokens for a broker on your own machine: an admin, a person, an agent and a service that may act for
# any agent. Writes DIR/tokens.json, the hashes the broker reads (AUTH_TOKENS_FILE), DIR/tokens.env,
# the tokens themselves, for you, and DIR/mcp-stream-token.keys, the key that replicas sign MCP stream tokens
# with (MCP_STREAM_TOKEN_KEYS_FILE); then prints tokens.env. Run again, it keeps what it made and prints it
# again; delete DIR for new tokens. docker-compose.yml runs it into its volume (docker compose logs tokens).
#   scripts/dev-tokens.sh [DIR]          DIR defaults to .secrets
#   . .secrets/tokens.env && curl -H "Authorization: Bearer $ARK_ADMIN_TOKEN" http://localhost:8080/whoami
set -eu
dir=${1:-.secrets}

token() {
  printf 'dev-%s-%s' "$1" "$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')"
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then printf %s "$1" | sha256sum; else printf %s "$1" | shasum -a 256; fi | cut -d' ' -f1
}

if [ ! -f "$dir/tokens.json" ]; then
  umask 077
  mkdir -p "$dir"
  admin=$(token admin) human=$(token human) agent=$(token agent) service=$(token service)
  printf 'ARK_ADMIN_TOKEN=%s\nARK_HUMAN_TOKEN=%s\nARK_AGENT_TOKEN=%s\nARK_SERVICE_TOKEN=%s\n' \
    "$admin" "$human" "$agent" "$service" > "$dir/tokens.env"
  cat > "$dir/tokens.json.new" <<JSON
{"tokens": [
  {"sha256": "$(sha256 "$admin")", "kind": "admin", "name": "ark://users/dev-admin"},
  {"sha256": "$(sha256 "$human")", "kind": "human", "name": "ark://users/dev", "teams": ["ark://teams/dev"]},
  {"sha256": "$(sha256 "$agent")", "kind": "agent", "name": "ark://agents/dev-agent"},
  {"sha256": "$(sha256 "$service")", "kind": "service", "name": "ark://users/dev-executor", "mayActFor": ["ark://agents/*"]}
]}
JSON
  # Hashes only: readable by the broker, whichever user it runs as.
  chmod 644 "$dir/tokens.json.new"
  chmod 755 "$dir"
  mv "$dir/tokens.json.new" "$dir/tokens.json"
fi
if [ ! -f "$dir/mcp-stream-token.keys" ]; then
  umask 077
  mkdir -p "$dir"
  od -An -N32 -tx1 /dev/urandom | tr -d ' \n' > "$dir/mcp-stream-token.keys.new"
  echo >> "$dir/mcp-stream-token.keys.new"
  # Read by the brokers, whichever user they run as, on this machine only.
  chmod 644 "$dir/mcp-stream-token.keys.new"
  mv "$dir/mcp-stream-token.keys.new" "$dir/mcp-stream-token.keys"
fi
if [ ! -f "$dir/tokens.env" ]; then
  echo "dev-tokens: $dir/tokens.json is there but $dir/tokens.env, its tokens, is not: delete $dir for new ones" >&2
  exit 1
fi
cat "$dir/tokens.env"
