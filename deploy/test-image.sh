#!/usr/bin/env bash
# Builds Colibri's image and checks it as an operator would run it (docs/operations.md, "Testing the
# image"): migrations as their own step, then `serve` on the embedded database, as a non-root user, with
# /healthz, Docker's health check, a merchant, a token and a card payment that settles, and a `docker
# stop` that drains and exits 0. Needs a running Docker daemon; not part of `npm test`.
#
#   deploy/test-image.sh                                  # the official node:20-bookworm-slim base
#   BASE_IMAGE=colibri-base:bookworm-node20 deploy/test-image.sh   # a base made by make-base-image.sh
#
# Everything listens on 127.0.0.1 (host network): the checks reach no other address.
set -euo pipefail

IMAGE=${IMAGE:-colibri:image-test}
PORT=${PORT:-18480}
BASE_IMAGE=${BASE_IMAGE:-}
cd "$(dirname "$0")/.."

name="colibri-image-test-$$"
volume="colibri-image-test-$$"
admin_token="adm_image_test_$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
cleanup() {
  docker rm -f "$name" >/dev/null 2>&1 || true
  docker volume rm "$volume" >/dev/null 2>&1 || true
}
trap cleanup EXIT
step() { printf '\n== %s\n' "$*"; }
fail() { printf 'FAILED: %s\n' "$*" >&2; docker logs --tail 40 "$name" >&2 2>/dev/null || true; exit 1; }

step "build $IMAGE${BASE_IMAGE:+ on $BASE_IMAGE}"
started=$(date +%s)
# Host network for the build too: `npm ci` reaches the registry as this machine does.
docker build --network host ${BASE_IMAGE:+--build-arg "BASE_IMAGE=$BASE_IMAGE"} -t "$IMAGE" . >/tmp/colibri-image-build.log 2>&1 ||
  { tail -40 /tmp/colibri-image-build.log >&2; fail "docker build (log: /tmp/colibri-image-build.log)"; }
echo "built in $(($(date +%s) - started)) s; $(docker image inspect -f '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1 / 1e6}')"

step "the runtime stage holds the build, no sources and no dev dependencies"
docker run --rm --network none --entrypoint sh "$IMAGE" -c \
  'test -f packages/server/dist/colibri.mjs && test ! -e packages/server/src && for dev in typescript vitest eslint playwright-core autocannon tsx esbuild; do test ! -e node_modules/$dev || { echo "node_modules/$dev"; exit 1; }; done' ||
  fail "sources or dev dependencies in the image"

step "migrate, as a step of its own"
docker volume create "$volume" >/dev/null
docker run --rm --network none -v "$volume:/var/lib/colibri" "$IMAGE" migrate || fail "migrate"

step "serve on 127.0.0.1:$PORT"
docker run -d --name "$name" --network host -v "$volume:/var/lib/colibri" \
  -e HOST=127.0.0.1 -e PORT="$PORT" -e COLIBRI_ADMIN_TOKEN="$admin_token" -e COLIBRI_SANDBOX_DELAY_MS=50 \
  --health-interval 2s --health-start-period 30s "$IMAGE" serve >/dev/null
for _ in $(seq 1 60); do
  curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
  [ "$(docker inspect -f '{{.State.Running}}' "$name")" = true ] || fail "the container stopped"
  sleep 0.5
done
curl -fsS "http://127.0.0.1:$PORT/healthz" || fail "/healthz"
echo

step "runs as a non-root user"
uid=$(docker exec "$name" sh -c "awk '/^Uid:/ {print \$2}' /proc/1/status")
echo "process 1 runs as uid $uid ($(docker exec "$name" id -un))"
[ "$uid" != 0 ] || fail "the service runs as root"
docker exec "$name" sh -c 'touch /app/x 2>/dev/null' && fail "the service can write its own code" || echo "the application files are read-only to it"

step "a merchant, a token and a card payment"
BASE="http://127.0.0.1:$PORT" ADMIN="$admin_token" node --input-type=module -e '
const base = process.env.BASE;
const call = async (method, path, body, headers = {}) => {
  const r = await fetch(base + path, { method, headers: { "content-type": "application/json", ...headers }, body: body && JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
};
const must = (res, status, what) => { if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`); return res.body; };
const merchant = must(await call("POST", "/admin/merchants", { name: "Image test" }, { authorization: `Bearer ${process.env.ADMIN}` }), 201, "POST /admin/merchants");
const auth = must(await call("POST", "/auth", { apiKey: merchant.api_key, apiSecret: merchant.api_secret }), 200, "POST /auth");
const as = { "x-auth-token": auth.token };
const person = must(await call("POST", "/checkout/person", { name: "Maria Silva", email: "maria@example.com", tax_id: "529.982.247-25", tax_id_type: "CPF" }, as), 200, "person");
const card = must(await call("POST", "/checkout/card", { public_person_id: person.public_person_id, number: "4111111111111111", exp_month: "12", exp_year: "2035", cvv: "123", holder_name: "MARIA SILVA" }, as), 200, "card");
const sent = must(await call("POST", "/checkout/sendPayment", {
  contract_id: merchant.contract_id, reference_id: "image-test-1", public_person_id: person.public_person_id, public_card_id: card.public_card_id,
  payment: { amount: "100.00", method: "CREDITCARD", asset: "BRL", installments: 1 },
}, { ...as, "idempotency-key": "image-test-1" }), 200, "sendPayment");
let status;
for (let i = 0; i < 100; i++) {
  status = must(await call("GET", `/transactionDetails/${sent.payment_token}`, undefined, as), 200, "transactionDetails").general_info.transaction_status;
  if (status !== "PROCESSING") break;
  await new Promise((r) => setTimeout(r, 100));
}
console.log(`payment ${sent.payment_token}: ${status}`);
if (status !== "PAID") throw new Error(`the payment ended ${status}, not PAID`);
' || fail "the payment flow"

step "Docker's health check"
for _ in $(seq 1 30); do
  health=$(docker inspect -f '{{.State.Health.Status}}' "$name")
  [ "$health" = healthy ] && break
  sleep 1
done
echo "health: $health"
[ "$health" = healthy ] || fail "the health check says $health"

step "docker stop drains and exits 0"
docker stop -t 30 "$name" >/dev/null
code=$(docker inspect -f '{{.State.ExitCode}}' "$name")
echo "exit code $code"
[ "$code" = 0 ] || fail "exit code $code after SIGTERM"

printf '\nimage test passed in %s s\n' "$(($(date +%s) - started))"
