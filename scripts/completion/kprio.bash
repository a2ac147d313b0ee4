# bash completion for kprio and kubectl-kprio (make install puts it in
# $(PREFIX)/share/bash-completion/completions/kprio; or `source` it from ~/.bashrc).
# Commands and flags are read from `kprio --help` and `kprio COMMAND --help` at completion time,
# so they are always those of the kprio installed.

_kprio_commands() {
    "${1:-kprio}" --help 2>/dev/null |
        awk '/^Commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } f && /^$/ { exit }'
}

# _kprio_flags KPRIO COMMAND: the command's long flags and the common short ones.
_kprio_flags() {
    { "$1" "$2" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*'
      printf '%s\n' -f --filename -R --recursive -o --output --no-headers --max-input-bytes -h --help
    } | sort -u
}

# _kprio_complete KPRIO CMD_INDEX EXTRA_COMMANDS: completes COMP_WORDS[COMP_CWORD] for a kprio
# command line whose command word is at CMD_INDEX.
_kprio_complete() {
    local bin=$1 at=$2 extra=$3 cur prev cmd
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    if [ "$COMP_CWORD" -eq "$at" ]; then
        COMPREPLY=($(compgen -W "$(_kprio_commands "$bin") $extra --help --version" -- "$cur"))
        return
    fi
    cmd=${COMP_WORDS[$at]}
    case $prev in
    -o | --output)
        COMPREPLY=($(compgen -W "table wide json yaml" -- "$cur"))
        [ "$cmd" = snapshot ] && COMPREPLY=($(compgen -d -- "$cur"))
        return ;;
    --imagefs) COMPREPLY=($(compgen -W "auto shared dedicated split" -- "$cur")); return ;;
    --compat) COMPREPLY=($(compgen -W "1.37 1.36 1.35 1.34 1.33 1.32" -- "$cur")); return ;;
    -f | --filename | --config | --pod | --summary)
        COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null; return ;;
    esac
    if [[ $cur == -* ]]; then
        local flags
        flags=$(_kprio_flags "$bin" "$cmd")
        [ "$cmd" = snapshot ] && flags="-o --output --node --all-nodes --obfuscate --obfuscate-key"
        COMPREPLY=($(compgen -W "$flags" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null
    fi
}

_kprio() { _kprio_complete "${COMP_WORDS[0]}" 1 ""; }
complete -F _kprio kprio

# `kubectl-kprio` typed directly; kubectl itself (1.26 and later) completes `kubectl kprio ...`
# through the kubectl_complete-kprio executable that make install puts next to kubectl-kprio.
_kubectl_kprio() {
    local bin=kprio
    command -v kprio >/dev/null 2>&1 || bin=$(dirname "$(command -v kubectl-kprio)")/kprio
    _kprio_complete "$bin" 1 "snapshot"
}
complete -F _kubectl_kprio kubectl-kprio
