#!/usr/bin/env bash
# Runs deploy/compose.yaml for real and checks it as an operator would use it (docs/operations.md, "A
# deployment with compose"): fresh secrets made as the compose file's header says, `up --build`, then
# through HAProxy /healthz, a merchant (admin token), a token, a card payment that the worker container
# settles (PAID), /metrics behind the admin token, the secrets out of `docker inspect`; api-1 killed
# (SIGKILL) and the requests sent right after answered by api-2, then api-1 started again and back in
# HAProxy's rotation; the worker stopped gracefully (exit code 0); and `down -v`. Needs a running Docker
# daemon and Docker Compose (`docker compose`, or else `docker-compose` 1.29); not part of `npm test`.
#
#   deploy/test-compose.sh                  # the official images (Docker Hub)
#   deploy/make-base-image.sh && STAND_INS=1 deploy/test-compose.sh
#                                           # no Docker Hub: Colibri on colibri-base:bookworm-node20,
#                                           # PostgreSQL and HAProxy from Debian (deploy/stand-ins/)
#
# STAND_INS=1 builds colibri-stand-in/postgres:15-bookworm and colibri-stand-in/haproxy:2.6-bookworm on
# COLIBRI_BASE_IMAGE (colibri-base:bookworm-node20 unless set) and runs the stack on them. Otherwise
# COLIBRI_BASE_IMAGE, COLIBRI_POSTGRES_IMAGE and COLIBRI_HAPROXY_IMAGE pass to deploy/compose.yaml as they
# are. PORT is the host port for HAProxy (8080), PROJECT the compose project (colibri-compose-test). The secrets are
# made in a temporary directory (COLIBRI_SECRETS_DIR), so deploy/secrets is never read or written, and
# the project is a project of its own, so its database volume starts empty and `down -v` removes it.
set -euo pipefail

PROJECT=${PROJECT:-colibri-compose-test}
PORT=${PORT:-8080}
STAND_INS=${STAND_INS:-}
cd "$(dirname "$0")/.."

started=$(date +%s)
step() { printf '\n== %s (%s s)\n' "$*" "$(($(date +%s) - started))"; }

if docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
elif command -v docker-compose >/dev/null 2>&1; then
  compose=(docker-compose)
else
  echo "neither \`docker compose\` nor docker-compose is installed" >&2
  exit 1
fi
dc() { "${compose[@]}" -p "$PROJECT" -f deploy/compose.yaml "$@"; }
container() { dc ps -q "$1"; }
uid_of() { docker exec "$(container "$1")" sh -c "awk '/^Uid:/ {print \$2}' /proc/1/status"; }

secrets=$(mktemp -d /tmp/colibri-compose-secrets.XXXXXX)
export COLIBRI_SECRETS_DIR=$secrets COLIBRI_HTTP_PORT=$PORT PUBLIC_BASE_URL="http://localhost:$PORT"
cleanup() {
  local code=$?
  if [ "$code" != 0 ]; then
    dc ps >&2 2>/dev/null || true
    dc logs --tail 30 >&2 2>/dev/null || true
  fi
  step "down -v"
  dc down -v --remove-orphans 2>&1 | sed 's/^/  /' || true
  rm -rf "$secrets"
  exit "$code"
}
trap cleanup EXIT
fail() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }

step "versions"
echo "compose: $("${compose[@]}" version | head -1)"
docker version -f 'docker client {{.Client.Version}}, daemon {{.Server.Version}} (API {{.Server.APIVersion}})'

if [ -n "$STAND_INS" ]; then
  export COLIBRI_BASE_IMAGE=${COLIBRI_BASE_IMAGE:-colibri-base:bookworm-node20}
  export COLIBRI_POSTGRES_IMAGE=colibri-stand-in/postgres:15-bookworm
  export COLIBRI_HAPROXY_IMAGE=colibri-stand-in/haproxy:2.6-bookworm
  step "stand-in images on $COLIBRI_BASE_IMAGE (deploy/stand-ins)"
  docker image inspect "$COLIBRI_BASE_IMAGE" >/dev/null 2>&1 ||
    fail "no image $COLIBRI_BASE_IMAGE: make it with deploy/make-base-image.sh"
  for name in postgres haproxy; do
    tag=COLIBRI_${name^^}_IMAGE
    build_started=$(date +%s)
    docker build --build-arg "BASE_IMAGE=$COLIBRI_BASE_IMAGE" -t "${!tag}" "deploy/stand-ins/$name" \
      >"/tmp/colibri-stand-in-$name.log" 2>&1 ||
      { tail -20 "/tmp/colibri-stand-in-$name.log" >&2; fail "building the $name stand-in (log: /tmp/colibri-stand-in-$name.log)"; }
    echo "${!tag}: built in $(($(date +%s) - build_started)) s"
  done
fi
echo "images: colibri on ${COLIBRI_BASE_IMAGE:-node:20-bookworm-slim}, ${COLIBRI_POSTGRES_IMAGE:-postgres:16-bookworm}, ${COLIBRI_HAPROXY_IMAGE:-haproxy:2.8-bookworm}"

step "secrets, made as deploy/compose.yaml's header says, in $secrets"
chmod 700 "$secrets"
(
  umask 022
  openssl rand -base64 32 >"$secrets/master-key"
  echo "adm_$(openssl rand -hex 24)" >"$secrets/admin-token"
  openssl rand -hex 24 >"$secrets/postgres-password"
  printf 'postgres://colibri:%s@postgres:5432/colibri\n' "$(cat "$secrets/postgres-password")" >"$secrets/database-url"
)
ls -l "$secrets" | tail -n +2 | awk '{print "  " $1, $NF}'
admin_token=$(cat "$secrets/admin-token")

step "up --build (project $PROJECT)"
up_started=$(date +%s)
dc up -d --build >/tmp/colibri-compose-up.log 2>&1 ||
  { tail -40 /tmp/colibri-compose-up.log >&2; fail "up (log: /tmp/colibri-compose-up.log)"; }
grep -vE '^( ---> |Step [0-9]+/|Removing intermediate|Sending build context|#[0-9]+ )' /tmp/colibri-compose-up.log |
  grep -E '^(Creating|Starting|Recreating|Building|Successfully tagged|Container|Network|Volume)' | sed 's/^/  /' || true
echo "up returned after $(($(date +%s) - up_started)) s (build log: /tmp/colibri-compose-up.log)"

step "HAProxy answers on :$PORT"
for _ in $(seq 1 60); do
  curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
  sleep 1
done
healthz=$(curl -fsS "http://127.0.0.1:$PORT/healthz") || fail "/healthz through HAProxy"
echo "GET /healthz: $healthz"
echo "serving $(($(date +%s) - up_started)) s after \`up\` started"
dc ps
migrate_code=$(docker inspect -f '{{.State.ExitCode}}' "$(container migrate)")
echo "migrate exited $migrate_code"
[ "$migrate_code" = 0 ] || fail "migrate exited $migrate_code"
echo "postgres: $(docker exec "$(container postgres)" postgres --version)"
echo "haproxy: $(docker exec "$(container haproxy)" haproxy -v | head -1)"
for svc in postgres api-1 api-2; do
  echo "$svc health: $(docker inspect -f '{{.State.Health.Status}}' "$(container "$svc")")"
done
echo "process 1 runs as uid: api-1 $(uid_of api-1), api-2 $(uid_of api-2), worker $(uid_of worker), postgres $(uid_of postgres), haproxy $(uid_of haproxy)"

step "the secrets are files, in no container's environment or \`docker inspect\`"
for svc in postgres migrate api-1 api-2 worker; do
  inspect=$(docker inspect "$(container "$svc")")
  if grep -qF -e "$admin_token" -e "$(cat "$secrets/postgres-password")" -e "$(cat "$secrets/master-key")" <<<"$inspect"; then
    fail "a secret appears in \`docker inspect\` of $svc"
  fi
done
echo "no secret in \`docker inspect\` of postgres, migrate, api-1, api-2, worker"
docker exec "$(container api-1)" sh -c 'ls -ln /run/secrets' | tail -n +2 | awk '{print "  api-1 /run/secrets/" $NF ": " $1 " uid " $3}'

# How many requests an API process has answered, health checks and /metrics aside, from its own
# colibri_http_requests_total (asked inside its container, with the admin token of its secret file).
answered() {
  docker exec "$(container "$1")" node -e '
const token = require("fs").readFileSync("/run/secrets/admin-token", "utf8").trim();
fetch("http://127.0.0.1:8080/metrics", { headers: { authorization: `Bearer ${token}` } }).then((r) => r.text()).then((text) => {
  let n = 0;
  for (const line of text.split("\n")) {
    const m = /^colibri_http_requests_total\{(.*)\} (\d+)$/.exec(line);
    if (m && !/route="\/(healthz|readyz|metrics)"/.test(m[1])) n += Number(m[2]);
  }
  console.log(n);
});'
}

# The flow, as a merchant would: every call goes through HAProxy. `node … payments N` creates N payments
# and waits for each to be PAID; `node … metrics` checks /metrics. Prints one line per check.
flow() {
  BASE="http://127.0.0.1:$PORT" ADMIN="$admin_token" node --input-type=module -e '
const base = process.env.BASE;
const [what, n = "1", tag = "a"] = process.argv.slice(1);
const calls = [];
const call = async (method, path, body, headers = {}) => {
  const t = Date.now();
  const r = await fetch(base + path, { method, headers: { "content-type": "application/json", ...headers }, body: body && JSON.stringify(body) });
  const text = await r.text();
  let parsed = text;
  try { parsed = text ? JSON.parse(text) : null; } catch {}
  calls.push({ what: `${method} ${path.replace(/[0-9a-f-]{36}/, "…")}`, ms: Date.now() - t });
  return { status: r.status, body: parsed, ms: Date.now() - t };
};
const must = (res, status, what) => { if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`); return res.body; };
const admin = { authorization: `Bearer ${process.env.ADMIN}` };
if (what === "metrics") {
  const without = await call("GET", "/metrics");
  console.log(`GET /metrics without the admin token: ${without.status}`);
  if (without.status !== 401 && without.status !== 403) throw new Error(`/metrics answered ${without.status} without the admin token`);
  const wrong = await call("GET", "/metrics", undefined, { authorization: "Bearer adm_wrong" });
  console.log(`GET /metrics with a wrong token: ${wrong.status}`);
  if (wrong.status !== 401 && wrong.status !== 403) throw new Error(`/metrics answered ${wrong.status} to a wrong token`);
  // The business series come from a snapshot of the database that a process reuses for 5 s
  // (docs/operations.md, "Metrics"), so the payment just made may show a few seconds later.
  const t = Date.now();
  let lines;
  for (let i = 0; i < 15; i++) {
    const text = must(await call("GET", "/metrics", undefined, admin), 200, "GET /metrics");
    lines = text.split("\n").filter((l) => /^colibri_(payments\{|payments_settled_total|business_metrics_up)/.test(l));
    if (lines.some((l) => /^colibri_payments\{.*status="PAID".*\} [1-9]/.test(l))) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  console.log(`GET /metrics with the admin token: 200 (after ${Date.now() - t} ms)\n${lines.map((l) => "  " + l).join("\n")}`);
  if (!lines.some((l) => /^colibri_payments\{.*status="PAID".*\} [1-9]/.test(l))) throw new Error("no PAID payment in /metrics after 15 s");
  process.exit(0);
}
const merchant = must(await call("POST", "/admin/merchants", { name: `Compose test ${tag}` }, admin), 201, "POST /admin/merchants");
console.log(`POST /admin/merchants (admin token): 201 in ${calls.at(-1).ms} ms, merchant ${merchant.merchant_id}`);
const auth = must(await call("POST", "/auth", { apiKey: merchant.api_key, apiSecret: merchant.api_secret }), 200, "POST /auth");
console.log(`POST /auth: 200 in ${calls.at(-1).ms} ms`);
const as = { "x-auth-token": auth.token };
const person = must(await call("POST", "/checkout/person", { name: "Maria Silva", email: "maria@example.com", tax_id: "529.982.247-25", tax_id_type: "CPF" }, as), 200, "person");
const card = must(await call("POST", "/checkout/card", { public_person_id: person.public_person_id, number: "4111111111111111", exp_month: "12", exp_year: "2035", cvv: "123", holder_name: "MARIA SILVA" }, as), 200, "card");
console.log(`POST /checkout/person, /checkout/card: 200 in ${calls.at(-2).ms} and ${calls.at(-1).ms} ms`);
const tokens = [];
for (let i = 1; i <= Number(n); i++) {
  const ref = `compose-test-${tag}-${i}`;
  const sent = await call("POST", "/checkout/sendPayment", {
    contract_id: merchant.contract_id, reference_id: ref, public_person_id: person.public_person_id, public_card_id: card.public_card_id,
    payment: { amount: "100.00", method: "CREDITCARD", asset: "BRL", installments: 1 },
  }, { ...as, "idempotency-key": ref });
  console.log(`POST /checkout/sendPayment ${i}: ${sent.status} in ${sent.ms} ms`);
  tokens.push(must(sent, 200, "sendPayment").payment_token);
}
for (const token of tokens) {
  const t = Date.now();
  let status;
  for (let i = 0; i < 300; i++) {
    status = must(await call("GET", `/transactionDetails/${token}`, undefined, as), 200, "transactionDetails").general_info.transaction_status;
    if (status !== "PROCESSING") break;
    await new Promise((r) => setTimeout(r, 100));
  }
  console.log(`payment ${token}: ${status} (${Date.now() - t} ms of polling)`);
  if (status !== "PAID") throw new Error(`the payment ended ${status}, not PAID`);
}
const slowest = calls.reduce((a, b) => (b.ms > a.ms ? b : a));
console.log(`${calls.length} requests through HAProxy, all answered; the slowest ${slowest.ms} ms (${slowest.what})`);
console.log(`requests=${calls.length}`);
' "$@"
}

step "through HAProxy: a merchant, a token, a card payment settled by the worker"
before1=$(answered api-1) before2=$(answered api-2)
out=$(flow payments 1 first) || { echo "$out"; fail "the payment flow"; }
echo "$out" | grep -v '^requests='
sent=$(echo "$out" | sed -n 's/^requests=//p')
a1=$(($(answered api-1) - before1)) a2=$(($(answered api-2) - before2))
echo "of these $sent requests api-1 answered $a1 and api-2 $a2 (round robin)"
[ $((a1 + a2)) = "$sent" ] && [ "$a1" -gt 0 ] && [ "$a2" -gt 0 ] || fail "the two API processes did not share the requests"

step "/metrics takes the admin token"
flow metrics || fail "/metrics"

step "docker kill api-1, then requests through HAProxy"
api1=$(container api-1)
address() { docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "$1"; }
api1_address=$(address "$api1")
before2=$(answered api-2)
docker kill "$api1" >/dev/null
echo "api-1 killed (SIGKILL); HAProxy learns it from its checks (1 s apart, 2 failures)"
out=$(flow payments 6 failover) || { echo "$out"; fail "requests after api-1 was killed"; }
echo "$out" | grep -v '^requests='
sent=$(echo "$out" | sed -n 's/^requests=//p')
a2=$(($(answered api-2) - before2))
echo "api-2 answered $a2 of them"
[ "$a2" = "$sent" ] || fail "api-2 answered $a2 of $sent requests"
echo "api-1 now: $(docker inspect -f '{{.State.Status}}, exit code {{.State.ExitCode}}, restarts {{.RestartCount}}' "$api1")"

step "api-1 started again rejoins the rotation"
dc start api-1 2>&1 | sed 's/^/  /'
for _ in $(seq 1 60); do
  [ "$(docker inspect -f '{{.State.Health.Status}}' "$api1")" = healthy ] && break
  sleep 1
done
echo "api-1 health: $(docker inspect -f '{{.State.Health.Status}}' "$api1"); address $(address "$api1") (before the kill: $api1_address)"
sleep 3 # HAProxy's `rise 2` at 1 s intervals
before1=$(answered api-1) before2=$(answered api-2)
out=$(flow payments 2 rejoin) || { echo "$out"; fail "requests after api-1 was started again"; }
echo "$out" | grep -v '^requests='
sent=$(echo "$out" | sed -n 's/^requests=//p')
a1=$(($(answered api-1) - before1)) a2=$(($(answered api-2) - before2))
echo "of these $sent requests api-1 answered $a1 and api-2 $a2"
[ "$a1" -gt 0 ] || fail "api-1 answers no request through HAProxy since it was started again"

step "the worker stops gracefully"
worker=$(container worker)
stop_started=$(date +%s)
dc stop worker 2>&1 | sed 's/^/  /'
code=$(docker inspect -f '{{.State.ExitCode}}' "$worker")
echo "worker exit code $code after $(($(date +%s) - stop_started)) s; its last log line: $(docker logs --tail 1 "$worker" 2>&1)"
[ "$code" = 0 ] || fail "the worker exited $code after SIGTERM"

printf '\ncompose test passed in %s s\n' "$(($(date +%s) - started))"
