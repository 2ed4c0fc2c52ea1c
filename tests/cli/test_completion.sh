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
check "plan options" "$(complete_line plan --ti)" "--tie"
check "report options" "$(complete_line report --o)" "--out"
check "check has no --knob" "$(complete_line check --kn)" ""
if [ $fail -eq 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
exit $fail
