# bash completion for waitroom: the commands the program's --help lists, then each command's
# options as its own --help lists them (so neither goes stale), then files. Installed by
# `cmake --install` to share/bash-completion/completions; or `source cli/completion/waitroom.bash`.
_waitroom() {
  local cur="${COMP_WORDS[COMP_CWORD]}" cmd="${COMP_WORDS[1]}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    local commands
    commands="$("${COMP_WORDS[0]}" --help 2>/dev/null |
      awk '$1 == "waitroom" && $2 ~ /^[a-z]+$/ { print $2 }' | sort -u)"
    mapfile -t COMPREPLY < <(compgen -W "$commands --help --version" -- "$cur")
    return
  fi
  if [[ "$cur" == --* ]]; then
    local opts
    opts="$("${COMP_WORDS[0]}" "$cmd" --help 2>/dev/null | grep -o -- '--[a-z-]*' | sort -u)"
    mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
    return
  fi
  mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -o filenames -F _waitroom waitroom
