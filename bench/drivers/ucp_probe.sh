#!/usr/bin/env bash
# ucp_probe.sh: runs bench/programs/ucp_probe.c's server and client (plain UCP: 8-byte
# put + flush, get, fetch-add) and prints the client's lines.
#
# usage: bench/drivers/ucp_probe.sh PROBE [-n N] [--netns NAME] [--shoal-like]
#   --netns NAME: server in namespace NAME-h1, client in NAME-h0 (a cluster
#   made by tests/netns/netns_job.sh --up NAME 2), UCX over TCP on shoal0;
#   without it both run here over loopback.
set -euo pipefail
PROBE=$1; shift
N=10000 NS="" LIKE=()
while [ $# -gt 0 ]; do
    case "$1" in
    -n) N=$2; shift 2 ;;
    --netns) NS=$2; shift 2 ;;
    --shoal-like) LIKE=(--shoal-like); shift ;;
    *) echo "ucp_probe.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
work=$(mktemp -d)
srv=""
trap '[ -z "$srv" ] || kill "$srv" 2>/dev/null || true; rm -rf "$work"' EXIT
if [ -n "$NS" ]; then
    in_srv=(ip netns exec "$NS-h1" env UCX_TLS=tcp UCX_NET_DEVICES=shoal0)
    in_cli=(ip netns exec "$NS-h0" env UCX_TLS=tcp UCX_NET_DEVICES=shoal0)
    host=10.77.0.2
else
    in_srv=(env UCX_TLS=tcp UCX_NET_DEVICES=lo)
    in_cli=(env UCX_TLS=tcp UCX_NET_DEVICES=lo)
    host=127.0.0.1
fi
"${in_srv[@]}" "$PROBE" "${LIKE[@]}" -l "$work/port" &
srv=$!
for _ in $(seq 200); do [ -s "$work/port" ] && break; sleep 0.05; done
[ -s "$work/port" ] || { echo "ucp_probe.sh: the server did not start" >&2; exit 1; }
"${in_cli[@]}" timeout 120 "$PROBE" "${LIKE[@]}" "$host" "$(cat "$work/port")" -n "$N"
wait "$srv"
srv=""
