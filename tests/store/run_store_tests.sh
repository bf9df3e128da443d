#!/bin/bash
# Tests of the launcher-free start through the config store. PEs are started
# by hand, as a user or another tool would: each gets SHOAL_RANK, SHOAL_NPES,
# SHOAL_STORE and a job secret (or a unique ID through a file). Only
# loopback addresses are used; ports are picked free at run time.
#
# Usage: run_store_tests.sh BINDIR CASE [NPES] [PROGRAM]
#   BINDIR holds store_pe, store_bs, store_probe and the store_uid_* programs;
#   API_BINDIR (environment) holds the tests/api programs.
set -u
export LC_ALL=C

BIN=$1
CASE=$2
NP=${3:-2}
PROG=${4:-}
PE="$BIN/store_pe"
PROBE="$BIN/store_probe"
API_BIN=${API_BINDIR:-$BIN/../api}

TMP=$(mktemp -d)
PIDS=()
# shellcheck disable=SC2317  # called by the trap
cleanup() {
    for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
    rm -rf "$TMP"
}
trap cleanup EXIT

# Keep the suite's own settings out of the PEs' way.
unset SHOAL_LAUNCHER_FD SHOAL_RANK SHOAL_NPES SHOAL_STORE SHOAL_JOB_KEY SHOAL_JOB_KEY_FILE \
    SHOAL_STORE_TLS SHOAL_STORE_TLS_INFO SHOAL_STORE_LISTEN_IFACE SHOAL_STORE_ADVERTISE_IFACE \
    SHOAL_STORE_IPV6 SHOAL_STORE_CONNECT_TIMEOUT SHOAL_STORE_JOIN_TIMEOUT
export SHOAL_STORE_CONNECT_TIMEOUT=20 SHOAL_STORE_JOIN_TIMEOUT=20

fail() {
    echo "FAIL [$CASE np$NP${PROG:+ $PROG}]: $*"
    for f in "$TMP"/*.out "$TMP"/*.err; do
        [ -s "$f" ] || continue
        echo "--- $(basename "$f") (first 20 lines):"
        head -n 20 "$f" | cut -c1-400
    done
    exit 1
}

newkey() { od -An -tx1 -N32 /dev/urandom | tr -d ' \n'; }
free_port() { "$PROBE" free-port "${1:-}" || fail "no free port"; }
now() { date +%s.%N; }
elapsed_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
less_than() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
# took_under SECONDS LIMIT: as in tests/launcher/test_lib.sh.
took_under() { awk -v a="$1" -v b="$2" -v k="${SHOAL_TEST_TIME_SCALE:-1}" 'BEGIN { exit !(a < b * k) }'; }

# start NAME RANK NPES CMD...: one PE by hand in the background, with the
# store settings of this test (STORE, KEY and any EXTRA_ENV) in its
# environment; output in $TMP/NAME.out and .err.
start() {
    local name=$1 rank=$2 npes=$3
    shift 3
    # Emptied here, not only by the background job's redirection: a reader
    # polling the file must not find an earlier round's lines (key-env).
    : >"$TMP/$name.out"
    : >"$TMP/$name.err"
    # shellcheck disable=SC2086  # EXTRA_ENV is a list of VAR=value words
    env SHOAL_RANK="$rank" SHOAL_NPES="$npes" SHOAL_STORE="$STORE" \
        ${KEY:+SHOAL_JOB_KEY=$KEY} ${EXTRA_ENV:-} \
        timeout 60 "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
    PIDS+=($!)
    eval "PID_$name=$!"
}

# start_uid NAME RANK NPES CMD...: the same, for a start from a unique ID
# (its store on 127.0.0.1, any free port, unless EXTRA_ENV says otherwise).
start_uid() {
    local name=$1 rank=$2 npes=$3
    shift 3
    : >"$TMP/$name.out" # as in start
    : >"$TMP/$name.err"
    # shellcheck disable=SC2086  # EXTRA_ENV is a list of VAR=value words
    env STORE_TEST_RANK="$rank" STORE_TEST_NPES="$npes" STORE_TEST_UID_FILE="$TMP/uid" \
        SHOAL_STORE=127.0.0.1:0 ${EXTRA_ENV:-} timeout 60 "$@" \
        >"$TMP/$name.out" 2>"$TMP/$name.err" &
    PIDS+=($!)
    eval "PID_$name=$!"
}

# kill_pe NAME: SIGKILL to that PE itself (the child of its `timeout`).
kill_pe() {
    local pid
    eval "pid=\$PID_$1"
    pkill -KILL -P "$pid" || fail "PE $1 was not running"
}

# wait_rc NAME: waits for that PE; its exit status in RC.
wait_rc() {
    local pid
    eval "pid=\$PID_$1"
    wait "$pid"
    RC=$?
}

# expect_all_ok N: PEs pe0..pe(N-1) all exited with status 0.
expect_all_ok() {
    for ((r = 0; r < $1; r++)); do
        wait_rc "pe$r"
        [ "$RC" -eq 0 ] || fail "PE $r exited with status $RC"
    done
}

# refused: the last PE waited for (RC) failed by itself, not by a signal.
refused() { [ "$RC" -ne 0 ] && [ "$RC" -lt 128 ]; }

# expect_in FILE REGEX [COUNT]: COUNT (default: at least 1) lines match.
expect_in() {
    local n
    n=$(grep -cE -- "$2" "$1")
    if [ -n "${3:-}" ]; then
        [ "$n" -eq "$3" ] || fail "$(basename "$1") has $n lines matching /$2/, expected $3"
    else
        [ "$n" -ge 1 ] || fail "$(basename "$1") has no line matching /$2/"
    fi
}

expect_not_in() {
    ! grep -qE -- "$2" "$1" || fail "$(basename "$1") has a line matching /$2/"
}

# wait_for_line FILE REGEX COUNT: until COUNT lines match (10 s at most).
wait_for_line() {
    local n
    for ((i = 0; i < 200; i++)); do
        n=$(grep -cE -- "$2" "$1" 2>/dev/null)
        [ "${n:-0}" -ge "$3" ] && return 0
        sleep 0.05
    done
    fail "$(basename "$1"): no $3 line(s) matching /$2/ within 10 s"
}

# run_job N CMD...: the whole job by environment; every PE must succeed.
run_job() {
    local n=$1
    shift
    for ((r = 0; r < n; r++)); do start "pe$r" "$r" "$n" "$@"; done
    expect_all_ok "$n"
}

run_uid_job() {
    rm -f "$TMP/uid" # a new job, a new ID
    run_job_uid_keep "$@"
}

run_job_uid_keep() { # the same with an ID that is already there or on its way
    local n=$1
    shift
    for ((r = 0; r < n; r++)); do start_uid "pe$r" "$r" "$n" "$@"; done
    expect_all_ok "$n"
}

make_certs() { # make_certs DIR NAME...: a CA in DIR and a certificate per NAME
    local dir=$1 name
    shift
    mkdir -p "$dir"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
        -subj "/CN=shoal test CA $(basename "$dir")" -keyout "$dir/ca.key" -out "$dir/ca.pem" \
        2>/dev/null || fail "openssl could not make a CA"
    printf '%s\n' "subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost" \
        "keyUsage=digitalSignature" "extendedKeyUsage=serverAuth,clientAuth" >"$dir/ext"
    for name in "$@"; do
        if ! openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$name" \
            -keyout "$dir/$name.key" -out "$dir/$name.csr" 2>/dev/null ||
            ! openssl x509 -req -in "$dir/$name.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
                -CAcreateserial -days 2 -extfile "$dir/ext" -out "$dir/$name.pem" 2>/dev/null; then
            fail "openssl could not make a certificate for $name"
        fi
    done
}

PORT=$(free_port)
STORE="127.0.0.1:$PORT"
KEY=$(newkey)
EXTRA_ENV=""

case $CASE in
env) # the standard API tests (or store_pe), started by environment
    if [ "$PROG" = store_pe ]; then
        run_job "$NP" "$PE" basic
        for ((r = 0; r < NP; r++)); do expect_in "$TMP/pe$r.out" "^OK basic PE $r$" 1; done
    else
        run_job "$NP" "$API_BIN/api_$PROG"
        expect_in "$TMP/pe0.out" "^PASS $PROG \($NP PEs\)"
    fi
    for ((r = 0; r < NP; r++)); do expect_not_in "$TMP/pe$r.err" "ERROR|WARN"; done
    ;;
uid) # the same programs started from a unique ID passed through a file
    if [ "$PROG" = store_pe ]; then
        run_uid_job "$NP" "$PE" uid 33554432
        for ((r = 0; r < NP; r++)); do expect_in "$TMP/pe$r.out" "^OK uid PE $r$" 1; done
    else
        run_uid_job "$NP" "$BIN/store_uid_$PROG"
        expect_in "$TMP/pe0.out" "^PASS $PROG \($NP PEs\)"
    fi
    for ((r = 0; r < NP; r++)); do expect_not_in "$TMP/pe$r.err" "ERROR|WARN"; done
    ;;
kv) # the bootstrap's put/get/barrier alone: big values, early GETs, threads
    run_job "$NP" "$BIN/store_bs"
    for ((r = 0; r < NP; r++)); do expect_in "$TMP/pe$r.out" "^PE $r kv ok$" 1; done
    ;;
kv-plain) # the same without TLS
    KEY="" EXTRA_ENV="SHOAL_STORE_TLS=0" run_job "$NP" "$BIN/store_bs"
    for ((r = 0; r < NP; r++)); do expect_in "$TMP/pe$r.out" "^PE $r kv ok$" 1; done
    ;;
coordinator) # a process that is no PE makes the ID, hosts the store, outlives the job
    SHOAL_STORE=127.0.0.1:0 timeout 60 "$PE" coordinator "$TMP/uid" >"$TMP/coord.out" \
        2>"$TMP/coord.err" &
    coord=$!
    PIDS+=("$coord")
    EXTRA_ENV="STORE_TEST_UID_MADE_ELSEWHERE=1" run_job_uid_keep "$NP" "$PE" uid 0
    wait "$coord"
    RC=$?
    [ "$RC" -eq 0 ] || fail "the coordinator exited with $RC"
    expect_in "$TMP/coord.out" "^OK coordinator$" 1
    for ((r = 0; r < NP; r++)); do expect_in "$TMP/pe$r.out" "^OK uid PE $r$" 1; done
    ;;
attr) # shmemx_init_attr(SHMEMX_INIT_WITH_STORE): job from the API, not the environment
    for ((r = 0; r < NP; r++)); do
        env STORE_TEST_RANK=$r STORE_TEST_NPES="$NP" STORE_TEST_STORE="$STORE" \
            STORE_TEST_KEY="$KEY" timeout 60 "$PE" attr 16777216 \
            >"$TMP/pe$r.out" 2>"$TMP/pe$r.err" &
        PIDS+=($!)
        eval "PID_pe$r=$!"
    done
    expect_all_ok "$NP"
    for ((r = 0; r < NP; r++)); do expect_in "$TMP/pe$r.out" "^OK attr PE $r$" 1; done
    ;;
reinit)
    run_job "$NP" "$PE" reinit
    for ((r = 0; r < NP; r++)); do expect_in "$TMP/pe$r.out" "^OK reinit PE $r$" 2; done
    ;;
ipv6) # the store on [::1], by environment and by unique ID
    STORE="[::1]:$(free_port 6)"
    run_job "$NP" "$PE" basic
    EXTRA_ENV="SHOAL_STORE=[::1]:0" run_uid_job "$NP" "$PE" uid 0
    expect_in "$TMP/pe$((NP - 1)).out" "^OK uid PE $((NP - 1))$" 1
    ;;
iface) # listen and advertise interfaces chosen by name (lo only)
    EXTRA_ENV="SHOAL_STORE_LISTEN_IFACE=lo" run_job "$NP" "$PE" basic
    EXTRA_ENV="SHOAL_STORE_ADVERTISE_IFACE=lo" run_uid_job "$NP" "$PE" uid 0
    EXTRA_ENV="SHOAL_STORE_ADVERTISE_IFACE=lo SHOAL_STORE_IPV6=1" run_uid_job "$NP" "$PE" uid 0
    EXTRA_ENV="SHOAL_STORE_LISTEN_IFACE=no-such-if0" start pe0 0 1 "$PE" basic
    wait_rc pe0
    [ "$RC" -ne 0 ] || fail "an unknown interface was accepted"
    expect_in "$TMP/pe0.err" "SHOAL_STORE_LISTEN_IFACE=no-such-if0: there is no network interface" 1
    ;;
key-file) # the secret from a file: 0600 works, 0644 and malformed text are refused
    printf '%s\n' "$KEY" >"$TMP/key"
    chmod 600 "$TMP/key"
    KEY="" EXTRA_ENV="SHOAL_JOB_KEY_FILE=$TMP/key" run_job "$NP" "$PE" basic
    chmod 644 "$TMP/key"
    KEY="" EXTRA_ENV="SHOAL_JOB_KEY_FILE=$TMP/key" start pe0 0 1 "$PE" basic
    wait_rc pe0
    [ "$RC" -ne 0 ] || fail "a key file of mode 0644 was accepted"
    expect_in "$TMP/pe0.err" "SHOAL_JOB_KEY_FILE=.* has mode 0644.*chmod 600" 1
    echo "not-hex" >"$TMP/key2"
    chmod 600 "$TMP/key2"
    KEY="" EXTRA_ENV="SHOAL_JOB_KEY_FILE=$TMP/key2" start pe0 0 1 "$PE" basic
    wait_rc pe0
    [ "$RC" -ne 0 ] || fail "a malformed key file was accepted"
    expect_in "$TMP/pe0.err" "must be 64 hex digits" 1
    KEY="" start pe0 0 1 "$PE" basic
    wait_rc pe0
    [ "$RC" -ne 0 ] || fail "TLS without a secret was accepted"
    expect_in "$TMP/pe0.err" "TLS is on \(the default\) but no job secret" 1
    ;;
key-env) # init takes the key out of the environment: /proc/PID/environ of the PE and of a
    # child it starts hold no trace of it; SHOAL_JOB_KEY_INHERIT=1 keeps it in both
    for inherit in 0 1; do
        rm -f "$TMP/go"
        for ((r = 0; r < NP; r++)); do
            EXTRA_ENV="STORE_TEST_GO=$TMP/go SHOAL_JOB_KEY_INHERIT=$inherit" \
                start "pe$r" "$r" "$NP" "$PE" child
        done
        for ((r = 0; r < NP; r++)); do
            for ((i = 0; i < 600; i++)); do # 60 s: TLS start-up on a loaded machine
                grep -q "^pids PE $r " "$TMP/pe$r.out" 2>/dev/null && break
                sleep 0.1
            done
            read -r _ _ _ _ self _ child < <(grep "^pids PE $r " "$TMP/pe$r.out") ||
                fail "PE $r did not start its child within 60 s"
            for p in "$self" "$child"; do
                envtext=$(tr '\0' '\n' <"/proc/$p/environ") || fail "cannot read /proc/$p/environ"
                grep -qx "SHOAL_RANK=$r" <<<"$envtext" ||
                    fail "/proc/$p/environ (PE $r) lacks SHOAL_RANK=$r: not the PE's environment?"
                if [ "$inherit" = 0 ]; then
                    if grep -qF "$KEY" <<<"$envtext" || grep -q "^SHOAL_JOB_KEY=." <<<"$envtext"; then
                        fail "the job key is in /proc/$p/environ (PE $r, self $self, child $child)"
                    fi
                else
                    grep -qx "SHOAL_JOB_KEY=$KEY" <<<"$envtext" ||
                        fail "SHOAL_JOB_KEY_INHERIT=1, yet the key is not in /proc/$p/environ"
                fi
            done
            expect_in "$TMP/pe$r.out" "^key after init: $([ "$inherit" = 0 ] && echo absent || echo present)$" 1
        done
        touch "$TMP/go"
        expect_all_ok "$NP"
        for ((r = 0; r < NP; r++)); do expect_in "$TMP/pe$r.out" "^OK child PE $r$" 1; done
    done
    ;;
key-weak) # keys easy to guess are refused, saying how to make a good one
    how="Make a random one with \`openssl rand -hex 32\` and give the same to every PE"
    for k in "$(printf '0%.0s' {1..64}):it is all zero" \
        "$(printf 'ab%.0s' {1..32}):it is one byte, 0xab, repeated" \
        "$(printf 'deadbeef%.0s' {1..8}):it is a pattern of 4 bytes repeated, so it holds 4 bytes"; do
        KEY=${k%%:*} start pe0 0 1 "$PE" basic
        wait_rc pe0
        refused || fail "key ${k%%:*}: exit status $RC"
        expect_in "$TMP/pe0.err" "SHOAL_JOB_KEY: the job secret is too easy to guess: ${k#*:}.*$how" 1
    done
    KEY=0123456789abcdef0123456789abcdef start pe0 0 1 "$PE" basic
    wait_rc pe0
    refused || fail "a short key: exit status $RC"
    expect_in "$TMP/pe0.err" "SHOAL_JOB_KEY: the job secret must be 64 hex digits \(32 random bytes\), but it has 32 characters; make one with \`openssl rand -hex 32\`" 1
    printf '%064d\n' 0 >"$TMP/key"
    chmod 600 "$TMP/key"
    KEY="" EXTRA_ENV="SHOAL_JOB_KEY_FILE=$TMP/key" start pe0 0 1 "$PE" basic
    wait_rc pe0
    refused || fail "a zero key file: exit status $RC"
    expect_in "$TMP/pe0.err" "SHOAL_JOB_KEY_FILE=$TMP/key: the job secret is too easy to guess: it is all zero" 1
    env STORE_TEST_RANK=0 STORE_TEST_NPES=1 STORE_TEST_STORE="$STORE" \
        STORE_TEST_KEY="$(printf '0%.0s' {1..64})" timeout 60 "$PE" attr 0 >"$TMP/attr.out" 2>"$TMP/attr.err"
    RC=$?
    refused || fail "a zero key by shmemx_init_attr: exit status $RC"
    expect_in "$TMP/attr.err" "shmemx_init_attr \(job_key\): the job secret is too easy to guess: it is all zero" 1
    ;;
wrong-secret) # an intruder with another secret is refused; both sides say so
    start pe0 0 2 "$PE" basic
    KEY=$(newkey) start intruder 1 2 "$PE" basic
    wait_rc intruder
    [ "$RC" -ne 0 ] || fail "the PE with the wrong secret joined"
    expect_in "$TMP/intruder.err" "config store at $STORE refused this PE: its job secret differs" 1
    start pe1 1 2 "$PE" basic
    expect_all_ok 2
    expect_in "$TMP/pe0.err" "config store at $STORE: refused a PE connecting from .*different job secret" 1
    ;;
plaintext-to-tls) # a client without TLS meets a TLS store
    start pe0 0 2 "$PE" basic
    "$PROBE" wait "$STORE" || fail "the store did not come up"
    EXTRA_ENV="SHOAL_STORE_TLS=0" start plain 1 2 "$PE" basic
    wait_rc plain
    [ "$RC" -ne 0 ] || fail "the plaintext PE joined the TLS store"
    expect_in "$TMP/plain.err" "config store at $STORE refused this PE: the store uses TLS with the job secret, this PE no TLS" 1
    # A raw plaintext HELLO frame, and a greeting that asks for no TLS.
    out=$("$PROBE" raw "$STORE" 0000000f00010000000000000000000100000001000168)
    [ "$out" = closed ] || fail "a raw plaintext frame left the connection $out"
    out=$("$PROBE" greet "$STORE" 2 0 -)
    [ "$(echo "$out" | head -n 1)" = "verdict 2 version 2 security 1" ] || fail "greeting without TLS: $out"
    start pe1 1 2 "$PE" basic
    expect_all_ok 2
    expect_in "$TMP/pe0.err" "refused a PE connecting from .*: it uses no TLS, this store TLS with the job secret" 2
    ;;
tls-to-plaintext) # a TLS client meets a store with TLS off
    EXTRA_ENV="SHOAL_STORE_TLS=0" start pe0 0 2 "$PE" basic
    start tls 1 2 "$PE" basic
    wait_rc tls
    [ "$RC" -ne 0 ] || fail "the TLS PE joined the plaintext store"
    expect_in "$TMP/tls.err" "the store uses no TLS, this PE TLS with the job secret" 1
    EXTRA_ENV="SHOAL_STORE_TLS=0" start pe1 1 2 "$PE" basic
    expect_all_ok 2
    ;;
tls-off-env) # TLS off for the whole job by environment: works, warns once per PE
    EXTRA_ENV="SHOAL_STORE_TLS=0" KEY="" run_job "$NP" "$PE" reinit
    for ((r = 0; r < NP; r++)); do
        expect_in "$TMP/pe$r.err" "TLS is turned off \(SHOAL_STORE_TLS=0\)" 1
        expect_in "$TMP/pe$r.err" "an outsider on the network who can reach the store can join the job, read what PEs publish, or end the job with any exit status and message" 1
        expect_in "$TMP/pe$r.out" "^OK reinit PE $r$" 2
    done
    ;;
tls-off-api) # TLS off by shmemx_set_conf_store_tls before init: works, warns once
    KEY="" run_job "$NP" "$PE" tls-off
    for ((r = 0; r < NP; r++)); do
        expect_in "$TMP/pe$r.err" "TLS is turned off \(shmemx_set_conf_store_tls\)" 1
        expect_in "$TMP/pe$r.out" "^OK tls-off PE $r$" 1
    done
    ;;
tls-after-init) # after init the call fails, changes nothing and does not warn
    run_job "$NP" "$PE" tls-after-init
    for ((r = 0; r < NP; r++)); do
        expect_in "$TMP/pe$r.out" "^OK tls-after-init PE $r$" 1
        expect_in "$TMP/pe$r.err" "shmemx_set_conf_store_tls: called after initialization" 3
        expect_not_in "$TMP/pe$r.err" "TLS is turned off"
    done
    ;;
tls-bad) # wrong tls_info is refused by the call, with the reason
    KEY="" start pe0 0 1 "$PE" tls-bad "cert=$TMP/none.pem;key=$TMP/none.key;ca=$TMP/none.pem"
    wait_rc pe0
    [ "$RC" -eq 0 ] || fail "store_pe tls-bad exited with $RC"
    expect_in "$TMP/pe0.err" "TLS settings: cannot read '$TMP/none.pem'" 1
    KEY="" start pe0 0 1 "$PE" tls-bad "cert=/dev/null"
    wait_rc pe0
    expect_in "$TMP/pe0.err" "certificates need all of cert=, key= and ca=" 1
    KEY="" start pe0 0 1 "$PE" tls-bad "colour=blue"
    wait_rc pe0
    expect_in "$TMP/pe0.err" "unknown field 'colour'" 1
    ;;
cert) # certificates from a job CA instead of the secret, by API and by environment
    make_certs "$TMP/ca" pe
    INFO="cert=$TMP/ca/pe.pem;key=$TMP/ca/pe.key;ca=$TMP/ca/ca.pem"
    KEY="" run_job "$NP" "$PE" tls-cert "$INFO"
    for ((r = 0; r < NP; r++)); do expect_in "$TMP/pe$r.out" "^OK tls-cert PE $r$" 1; done
    STORE="localhost:$(free_port)"
    KEY="" EXTRA_ENV="SHOAL_STORE_TLS_INFO=$INFO" run_job "$NP" "$PE" basic
    ;;
cert-refused) # a certificate from another CA, and a revoked one, are refused
    make_certs "$TMP/ca" pe revoked
    make_certs "$TMP/other" stranger
    INFO="cert=$TMP/ca/pe.pem;key=$TMP/ca/pe.key;ca=$TMP/ca/ca.pem"
    # Revoke "revoked" in a CRL that every PE of the job uses.
    (cd "$TMP/ca" && mkdir -p db && : >db/index && echo 01 >db/crlnumber &&
        printf '[ca]\ndefault_ca=c\n[c]\ndatabase=db/index\ncrlnumber=db/crlnumber\ndefault_md=sha256\ndefault_crl_days=2\n' >ca.cnf &&
        openssl ca -config ca.cnf -keyfile ca.key -cert ca.pem -revoke revoked.pem 2>/dev/null &&
        openssl ca -config ca.cnf -keyfile ca.key -cert ca.pem -gencrl -out crl.pem 2>/dev/null) ||
        fail "openssl could not make a CRL"
    INFO="$INFO;crl=$TMP/ca/crl.pem"
    KEY="" EXTRA_ENV="SHOAL_STORE_TLS_INFO=$INFO" start pe0 0 2 "$PE" basic
    KEY="" EXTRA_ENV="SHOAL_STORE_TLS_INFO=cert=$TMP/other/stranger.pem;key=$TMP/other/stranger.key;ca=$TMP/ca/ca.pem" \
        start stranger 1 2 "$PE" basic
    wait_rc stranger
    [ "$RC" -ne 0 ] || fail "a certificate from another CA was accepted"
    expect_in "$TMP/stranger.err" "TLS handshake with the config store at $STORE failed" 1
    KEY="" EXTRA_ENV="SHOAL_STORE_TLS_INFO=cert=$TMP/ca/revoked.pem;key=$TMP/ca/revoked.key;ca=$TMP/ca/ca.pem;crl=$TMP/ca/crl.pem" \
        start revoked 1 2 "$PE" basic
    wait_rc revoked
    [ "$RC" -ne 0 ] || fail "a revoked certificate was accepted"
    expect_in "$TMP/revoked.err" "TLS handshake with the config store at $STORE failed" 1
    KEY="" EXTRA_ENV="SHOAL_STORE_TLS_INFO=$INFO" start pe1 1 2 "$PE" basic
    expect_all_ok 2
    expect_in "$TMP/pe0.err" "TLS handshake with .* failed:.*(unknown ca|revoked|certificate)" 2
    ;;
version) # protocol version mismatch, seen from the store and from a PE
    start pe0 0 2 "$PE" basic
    "$PROBE" wait "$STORE" || fail "the store did not come up"
    out=$("$PROBE" greet "$STORE" 99 1 "$KEY")
    [ "$(echo "$out" | head -n 1)" = "verdict 1 version 2 security 1" ] || fail "version 99 greeting: $out"
    start pe1 1 2 "$PE" basic
    expect_all_ok 2
    expect_in "$TMP/pe0.err" "refused a PE connecting from .*: it speaks protocol version 99, this store version 2" 1
    # A PE meets a store that answers as version 3 would.
    PORT=$(free_port)
    "$PROBE" fake-store "$PORT" 3 1 >"$TMP/fake.out" 2>&1 &
    PIDS+=($!)
    wait_for_line "$TMP/fake.out" "^ready$" 1
    STORE="127.0.0.1:$PORT" start pe1 1 2 "$PE" basic
    wait_rc pe1
    [ "$RC" -ne 0 ] || fail "the PE went on with a store of another version"
    expect_in "$TMP/pe1.err" "the config store at 127.0.0.1:$PORT speaks protocol version 3, this PE version 2: every PE of a job must run the same Shoal version" 1
    ;;
rank-range) # ranks outside the job: caught locally, and by the store
    start bad 5 4 "$PE" basic
    wait_rc bad
    [ "$RC" -ne 0 ] || fail "SHOAL_RANK=5 of 4 was accepted"
    expect_in "$TMP/bad.err" "SHOAL_RANK=5 is out of range: the job has SHOAL_NPES=4 PE\(s\), ranks 0 to 3" 1
    start pe0 0 2 "$PE" basic
    start bad 3 8 "$PE" basic
    wait_rc bad
    [ "$RC" -ne 0 ] || fail "rank 3 joined a job of 2"
    expect_in "$TMP/bad.err" "config store at $STORE refused this PE \(rank 3 of 8\): rank 3 is outside this job of 2 PEs" 1
    start bad 1 3 "$PE" basic
    wait_rc bad
    expect_in "$TMP/bad.err" "refused this PE \(rank 1 of 3\): this PE says the job has 3 PEs, but the store's job has 2" 1
    start pe1 1 2 "$PE" basic
    expect_all_ok 2
    ;;
rank-twice) # two PEs claim the same rank: the second is refused
    EXTRA_ENV="SHOAL_LOG_LEVEL=3" start pe0 0 3 "$PE" basic
    start pe1 1 3 "$PE" basic
    wait_for_line "$TMP/pe0.err" "PE 1 joined from" 1
    start twin 1 3 "$PE" basic
    wait_rc twin
    [ "$RC" -ne 0 ] || fail "a second rank 1 joined"
    expect_in "$TMP/twin.err" "refused this PE \(rank 1 of 3\): rank 1 is already claimed by pid [0-9]+ on host" 1
    start pe2 2 3 "$PE" basic
    expect_all_ok 3
    ;;
dead-store) # no store at all: a clear error within the connect timeout, no hang
    t0=$(now)
    EXTRA_ENV="SHOAL_STORE_CONNECT_TIMEOUT=2" start pe1 1 2 "$PE" basic
    wait_rc pe1
    t=$(elapsed_since "$t0")
    [ "$RC" -ne 0 ] || fail "PE 1 succeeded without a store"
    took_under "$t" 6 || fail "PE 1 took $t s to give up (timeout 2 s)"
    less_than 1.9 "$t" || fail "PE 1 gave up after $t s, before the 2 s timeout"
    expect_in "$TMP/pe1.err" "cannot reach the config store at $STORE \(from SHOAL_STORE\) within 2\.[0-9] s: Connection refused\. To fix: start PE 0" 1
    # The same from a unique ID whose store is gone: its maker has exited.
    SHOAL_STORE=127.0.0.1:0 timeout 20 "$PE" make-uid "$TMP/uid" >/dev/null 2>&1 ||
        fail "no unique ID made"
    t0=$(now)
    EXTRA_ENV="SHOAL_STORE_CONNECT_TIMEOUT=2" start_uid pe1 1 2 "$PE" uid 0
    wait_rc pe1
    [ "$RC" -ne 0 ] || fail "PE 1 joined a unique ID whose store is gone"
    took_under "$(elapsed_since "$t0")" 6 || fail "PE 1 took too long to give up"
    expect_in "$TMP/pe1.err" "cannot reach the config store at 127\.0\.0\.1:[0-9]+ \(from the unique ID\)" 1
    ;;
join-timeout) # the last rank never comes: the others are told which, within the timeout
    t0=$(now)
    missing=$((NP - 1))
    # 5 s: long enough for the others to join on a loaded 2-core machine (CI runs tests in parallel).
    for ((r = 0; r < missing; r++)); do
        EXTRA_ENV="SHOAL_STORE_JOIN_TIMEOUT=5" start "pe$r" "$r" "$NP" "$PE" basic
    done
    for ((r = 0; r < missing; r++)); do
        wait_rc "pe$r"
        [ "$RC" -ne 0 ] || fail "PE $r started a job with a rank missing"
        # Every one is told, also when PE 0 (which hosts the store) is told first and exits.
        expect_in "$TMP/pe$r.err" "refused this PE \(rank $r of $NP\): only $missing of $NP PEs joined within 5 s; missing rank\(s\): $missing\." 1
    done
    took_under "$(elapsed_since "$t0")" 15 || fail "the join timeout took too long"
    ;;
store-killed) # the store's host dies mid-job: the PEs exit with a clear line
    for ((r = 0; r < NP; r++)); do start "pe$r" "$r" "$NP" "$PE" hang; done
    for ((r = 0; r < NP; r++)); do wait_for_line "$TMP/pe$r.out" "^ready PE $r$" 1; done
    t0=$(now)
    kill_pe pe0
    for ((r = 1; r < NP; r++)); do
        wait_rc "pe$r"
        [ "$RC" -eq 1 ] || fail "PE $r exited with $RC after the store died"
        expect_in "$TMP/pe$r.err" "the config store at $STORE \(hosted by PE 0\) went away: it closed the connection.*exiting" 1
    done
    took_under "$(elapsed_since "$t0")" 10 || fail "PEs took too long to notice the store died"
    ;;
pe-killed) # a PE dies mid-job: the store ends the job for the others
    for ((r = 0; r < NP; r++)); do start "pe$r" "$r" "$NP" "$PE" hang; done
    for ((r = 0; r < NP; r++)); do wait_for_line "$TMP/pe$r.out" "^ready PE $r$" 1; done
    victim=$((NP - 1))
    t0=$(now)
    kill_pe "pe$victim"
    for ((r = 0; r < NP - 1; r++)); do
        wait_rc "pe$r"
        [ "$RC" -eq 1 ] || fail "PE $r exited with $RC after PE $victim died"
    done
    took_under "$(elapsed_since "$t0")" 10 || fail "the job took too long to end"
    expect_in "$TMP/pe0.err" "PE $victim \(pid [0-9]+ on .*\) closed its connection to the config store at $STORE before shmem_finalize" 1
    ;;
global-exit) # shmem_global_exit on one PE ends every PE with its status
    for origin in $((NP - 1)) 0; do
        t0=$(now)
        for ((r = 0; r < NP; r++)); do start "pe$r" "$r" "$NP" "$PE" exit 7 "$origin"; done
        for ((r = 0; r < NP; r++)); do
            wait_rc "pe$r"
            [ "$RC" -eq 7 ] || fail "PE $r exited with $RC, expected 7 (origin PE $origin)"
        done
        took_under "$(elapsed_since "$t0")" 10 || fail "global exit from PE $origin took too long"
        STORE="127.0.0.1:$(free_port)"
    done
    ;;
idle-flood) # PROG idle connections (no greeting, no key) against a job whose fd limit is 1024
    count=$PROG
    start pe0 0 "$NP" prlimit --nofile=1024:1024 "$PE" basic
    "$PROBE" wait "$STORE" || fail "the store did not come up"
    # The stranger: its connections up within 40 s, held 80 s at most (the job ends first).
    t0=$(now)
    "$PROBE" idle "$PORT" "$count" 40 80 >"$TMP/idle.out" 2>"$TMP/idle.err" &
    PIDS+=($!)
    for ((i = 0; i < 900; i++)); do
        grep -q "^connected" "$TMP/idle.out" && break
        sleep 0.1
    done
    expect_in "$TMP/idle.out" "^connected [0-9]+ closed [0-9]+ \(0 still connecting\)$" 1
    read -r _ connected _ <"$TMP/idle.out"
    [ "$connected" -ge "$count" ] || fail "only $connected of $count idle connections came up"
    for ((r = 1; r < NP; r++)); do
        start "pe$r" "$r" "$NP" prlimit --nofile=1024:1024 "$PE" basic
    done
    expect_all_ok "$NP"
    for ((r = 0; r < NP; r++)); do expect_in "$TMP/pe$r.out" "^OK basic PE $r$" 1; done
    expect_not_in "$TMP/pe0.err" "ERROR|cannot accept"
    expect_in "$TMP/pe0.err" "config store at $STORE: closed the connection from 127\.0\.0\.1:[0-9]+ \(open [0-9.]+ s, no greeting\) to make room"
    expect_in "$TMP/pe0.err" "config store at $STORE: connections closed to make room: \.\.\. and [0-9,]+ more like this in the last second"
    # Rate-limited: 10 lines per kind per second and a summary (two kinds can
    # come: closed to make room, closed for not joining in time), not one per
    # connection.
    t=$(elapsed_since "$t0")
    lines=$(wc -l <"$TMP/pe0.err")
    bound=$(awk -v t="$t" 'BEGIN { printf "%d", 20 + 22 * (int(t) + 1) }')
    [ "$lines" -le "$bound" ] || fail "PE 0 logged $lines lines in $t s under $count idle connections (at most $bound expected)"
    echo "PE 0 logged $lines lines in $t s (bound $bound); the stranger: $(cat "$TMP/idle.out")"
    grep "more like this" "$TMP/pe0.err"
    ;;
join-death) # a PE that joined dies before all joined: the start ends at once, naming it
    victim=$((NP - 1))
    EXTRA_ENV="SHOAL_LOG_LEVEL=3" start pe0 0 "$NP" "$PE" basic
    for ((r = 1; r < NP - 2; r++)); do start "pe$r" "$r" "$NP" "$PE" basic; done
    start "pe$victim" "$victim" "$NP" "$PE" basic
    # Rank NP-2 is never started: the job cannot start before the kill.
    for ((r = 0; r < NP - 2; r++)); do wait_for_line "$TMP/pe0.err" "PE $r joined from" 1; done
    wait_for_line "$TMP/pe0.err" "PE $victim joined from" 1
    t0=$(now)
    kill_pe "pe$victim"
    for ((r = 0; r < NP - 2; r++)); do
        wait_rc "pe$r"
        [ "$RC" -ne 0 ] || fail "PE $r succeeded though PE $victim died in the join"
    done
    t=$(elapsed_since "$t0")
    for ((r = 0; r < NP - 2; r++)); do
        expect_in "$TMP/pe$r.err" "the config store at $STORE ended the start of the job \(this PE: rank $r of $NP\): PE $victim \(pid [0-9]+ on .*\) closed its connection to the config store at $STORE while the job was starting" 1
    done
    expect_in "$TMP/pe0.err" "config store at $STORE: the job cannot start: PE $victim " 1
    # The join timeout is 20 s: the start must end on the death, not on the timeout.
    took_under "$t" 2 || fail "the start took $t s to end after PE $victim died"
    echo "the start ended $t s after PE $victim was killed"
    ;;
malformed) # broken clients are closed; the store and its job carry on
    start pe0 0 2 "$PE" basic
    "$PROBE" wait "$STORE" || fail "the store did not come up"
    out=$("$PROBE" raw "$STORE" 160301007a0100007603035f1d2c3b4a59687786950a1b2c3d4e5f60)
    [ "$out" = closed ] || fail "a bare TLS ClientHello left the connection $out"
    out=$("$PROBE" raw "$STORE" "$(printf 'GET / HTTP/1.0\r\n\r\n' | od -An -tx1 | tr -d ' \n')")
    [ "$out" = closed ] || fail "an HTTP request left the connection $out"
    for what in type oversize reserved trailing no-hello bad-hello truncated; do
        out=$("$PROBE" frames "$STORE" "$KEY" "$what")
        [ "$out" = closed ] || fail "malformed frame '$what' left the connection $out"
    done
    start pe1 1 2 "$PE" basic
    expect_all_ok 2
    for what in "unknown message type" "frame larger than the protocol allows" \
        "reserved header bits" "bytes left over" "the first message must be HELLO" \
        "rank outside 0 .. npes - 1" "field runs past the end"; do
        expect_in "$TMP/pe0.err" "broke the protocol: $what" 1
    done
    ;;
*)
    echo "unknown case $CASE"
    exit 2
    ;;
esac
echo "ok: $CASE np$NP${PROG:+ $PROG}"
exit 0
