#!/usr/bin/env bash
# The bash completion offers commands, then the options a command's --help lists.
set -euo pipefail
binary="$1" script="$2"
source "$script"
complete_line() {  # words... -> COMPREPLY for the last word
  COMP_WORDS=("$binary" "$@")
  COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
  _waitroom
  echo "${COMPREPLY[*]}"
}
fail=0
check() { if [ "$2" != "$3" ]; then echo "FAILED $1: got '$2', expected '$3'"; fail=1; fi; }
check "commands" "$(complete_line pl)" "plan"
check "load is a command" "$(complete_line lo)" "load"
# Every command the usage lists is offered (the list once went stale: load was missing).
listed="$("$binary" --help | awk '$1 == "waitroom" && $2 ~ /^[a-z]+$/ { print $2 }' | sort -u |
  tr '\n' ' ')"
check "every command" "$(complete_line '' | tr ' ' '\n' | grep -v -- '^--' | sort -u | tr '\n' ' ')" \
  "$listed"
check "at least ten commands" "$([ "$(wc -w <<<"$listed")" -ge 10 ] && echo yes)" "yes"
check "plan options" "$(complete_line plan --ti)" "--tie"
check "report options" "$(complete_line report --o)" "--out"
check "check has no --knob" "$(complete_line check --kn)" ""
check "run's formats" "$(complete_line run --format '')" "table json csv markdown"
check "sweep's formats" "$(complete_line sweep --format '')" "table json"
check "a format by its start" "$(complete_line check --format j)" "json"
check "load's formats" "$(complete_line load --format '')" "table json"
if [ $fail -eq 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
exit $fail
