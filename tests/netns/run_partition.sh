#!/bin/bash
# A network partition mid-job: a netns_job.sh cluster runs partition_prog,
# and once every PE said it runs, host CUT is cut off the switch (--cut).
# Passes when
#   - the job fails (not 0, not netns_job's timeout, not a PE's "the cut
#     went unnoticed"), every PE ended by itself (no "did not end within"),
#     and the last one ended less than LIMIT seconds after the cut;
#   - the output matches every extended regular expression given after --
#     (the messages naming the unreachable host);
#   - no namespace of the job is left.
# The measured time is printed ("every PE ended X s after the cut").
# Exit 77 (skipped) where namespaces cannot be made.
# Usage: run_partition.sh NETNS_JOB PROG HOSTS PPH CUT LIMIT [JOB_OPTION...] -- REGEX...
set -u
job=$1 prog=$2 hosts=$3 pph=$4 cut=$5 limit=$6
shift 6
opts=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    opts+=("$1")
    shift
done
[ $# -gt 0 ] && shift
name=shoal$$

out=$(NAME=$name "$job" --timeout 120 --cut "$cut" "${opts[@]}" "$hosts" "$pph" "$prog" 2>&1)
rc=$?
echo "$out"
[ "$rc" -eq 77 ] && exit 77

failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
[ "$rc" -eq 0 ] && fail "the job exited 0: the cut did not end it"
# (124 alone is also SHOAL_HANG_TIMEOUT's status; netns_job's timeout says so.)
echo "$out" | grep -q "^netns_job: timeout after" && fail "netns_job timed out: the cut was not noticed"
echo "$out" | grep -q "did not end within" && fail "some PE did not end by itself"
echo "$out" | grep -q "the cut went unnoticed" && fail "a PE ran on for 90 s after the start"
took=$(echo "$out" | sed -n 's/^netns_job: every PE ended \([0-9.]*\) s after the cut$/\1/p')
if [ -z "$took" ]; then
    fail "no time from the cut to the end (was there a cut?)"
elif ! awk -v t="$took" -v l="$limit" 'BEGIN { exit !(t < l) }'; then
    fail "the job ended $took s after the cut, the bound is $limit s"
fi
for re in "$@"; do
    echo "$out" | grep -Eq -- "$re" || fail "no line matches: $re"
done
left=$(ip netns list 2>/dev/null | awk -v p="$name-" 'index($1, p) == 1 { print $1 }')
if [ -n "$left" ]; then
    fail "namespaces left behind: $left"
else
    echo "no namespace of the job is left"
fi
if [ "$failures" -eq 0 ]; then
    echo "PASS: the job ended $took s after the cut (bound $limit s)"
    exit 0
fi
exit 1
