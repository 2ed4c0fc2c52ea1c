# bash completion for waitroom: the commands the program's --help lists, then each command's
# options as its own --help lists them and --format's values as it names them (so none goes
# stale), then files. Installed by `cmake --install` to share/bash-completion/completions; or
# `source cli/completion/waitroom.bash`.
_waitroom() {
  local cur="${COMP_WORDS[COMP_CWORD]}" cmd="${COMP_WORDS[1]}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    local commands
    commands="$("${COMP_WORDS[0]}" --help 2>/dev/null |
      awk '$1 == "waitroom" && $2 ~ /^[a-z]+$/ { print $2 }' | sort -u)"
    mapfile -t COMPREPLY < <(compgen -W "$commands --help --version" -- "$cur")
    return
  fi
  if [ "${COMP_WORDS[COMP_CWORD - 1]}" = "--format" ]; then
    # The formats the command's --help names: `--format table|json|csv`.
    local formats
    formats="$("${COMP_WORDS[0]}" "$cmd" --help 2>/dev/null | grep -o -- '--format [a-z]*|[a-z|]*' |
      head -n 1 | cut -d ' ' -f 2 | tr '|' ' ')"
    mapfile -t COMPREPLY < <(compgen -W "$formats" -- "$cur")
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
