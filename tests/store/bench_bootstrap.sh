#!/bin/bash
# Time to bootstrap a job started by hand through the config store: from
# launching N PEs (store_pe time) until the last one returns from shmem_init,
# with TLS on (job secret), with certificates, and with TLS off. Prints the
# median and minimum of RUNS runs of each. Loopback only.
#   usage: tests/store/bench_bootstrap.sh BUILD_DIR [NPES=8] [RUNS=20]
set -eu
export LC_ALL=C
build=$1
np=${2:-8}
runs=${3:-20}
pe=$build/tests/store/store_pe
probe=$build/tests/store/store_probe
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset SHOAL_LAUNCHER_FD SHOAL_JOB_KEY SHOAL_JOB_KEY_FILE SHOAL_STORE_TLS SHOAL_STORE_TLS_INFO

# A CA and one certificate for every PE.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=ca \
    -keyout "$tmp/ca.key" -out "$tmp/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=pe \
    -keyout "$tmp/pe.key" -out "$tmp/pe.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >"$tmp/ext"
openssl x509 -req -in "$tmp/pe.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca.key" -CAcreateserial \
    -days 1 -extfile "$tmp/ext" -out "$tmp/pe.pem" 2>/dev/null
certs="cert=$tmp/pe.pem;key=$tmp/pe.key;ca=$tmp/ca.pem"

one_run() { # one_run ENV...: seconds from launch to the last init_done
    local port t0 pids=() r
    port=$("$probe" free-port)
    t0=$EPOCHREALTIME
    for ((r = 0; r < np; r++)); do
        env SHOAL_RANK=$r SHOAL_NPES="$np" SHOAL_STORE="127.0.0.1:$port" "$@" \
            timeout 60 "$pe" time >"$tmp/out$r" 2>"$tmp/err$r" &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || { cat "$tmp"/err*; exit 1; }; done
    cat "$tmp"/out* | awk -v t0="$t0" '/^init_done/ { if ($2 > m) m = $2 } END { printf "%.6f\n", m - t0 }'
}

measure() { # measure LABEL ENV...
    local label=$1
    shift
    for ((i = 0; i < runs; i++)); do one_run "$@"; done | sort -n |
        awk -v l="$label" -v np="$np" '{ v[NR] = $1 } END {
            printf "%-26s %d PEs: median %6.1f ms, min %6.1f ms (%d runs)\n",
                   l, np, 1000 * v[int((NR + 1) / 2)], 1000 * v[1], NR }'
}

key=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
one_run SHOAL_JOB_KEY="$key" >/dev/null # warm the caches
measure "TLS 1.3, job secret (PSK)" SHOAL_JOB_KEY="$key"
measure "TLS 1.3, certificates" SHOAL_STORE_TLS_INFO="$certs"
measure "TLS off" SHOAL_STORE_TLS=0
