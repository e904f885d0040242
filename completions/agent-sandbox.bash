# bash completion for agent-sandbox(1): the commands, their options, the
# running sessions' IDs (from `agent-sandbox ps -q`) and the agents' names.
# Installed as bash-completion/completions/agent-sandbox, loaded on demand.

_agent_sandbox_agents="claude codex crush gemini opencode"
_agent_sandbox_toolchains="go java node python rust"

# the images the user derived: the folders of the config directory's images/
_agent_sandbox_images()
{
    local d=${XDG_CONFIG_HOME:-$HOME/.config}/agent-sandbox/images f
    for f in "$d"/*/Containerfile; do [ -f "$f" ] && basename "${f%/Containerfile}"; done
}

_agent_sandbox_ids()
{
    "$1" ps -q 2>/dev/null
}

_agent_sandbox()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local cli=${COMP_WORDS[0]} cmd='' i
    COMPREPLY=()
    # the command, if any: the first word after the session's options
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            --exec)                      # COMMAND, then its own arguments
                if declare -F _command_offset >/dev/null; then
                    _command_offset $((i + 1))
                elif ((COMP_CWORD == i + 1)); then
                    mapfile -t COMPREPLY < <(compgen -c -- "$cur")
                else
                    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
                fi
                return 0 ;;
            --) return 0 ;;              # the rest is the agent's
            --env | --secret | --memory | --pids | --cpus | --agent | --publish | --toolchain | --image) ((i++)) ;;
            -*) ;;
            *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done
    case $prev in
        --session) mapfile -t COMPREPLY < <(compgen -W "$(_agent_sandbox_ids "$cli")" -- "$cur"); return 0 ;;
        --agent) mapfile -t COMPREPLY < <(compgen -W "$_agent_sandbox_agents" -- "$cur"); return 0 ;;
        --toolchain) mapfile -t COMPREPLY < <(compgen -W "$_agent_sandbox_toolchains" -- "$cur"); return 0 ;;
        --image) mapfile -t COMPREPLY < <(compgen -W "$(_agent_sandbox_images)" -- "$cur"); return 0 ;;
        --env | --secret) mapfile -t COMPREPLY < <(compgen -e -- "$cur"); return 0 ;;
        --memory | --pids | --cpus) mapfile -t COMPREPLY < <(compgen -W none -- "$cur"); return 0 ;;
        --publish) return 0 ;;
    esac
    local words
    case $cmd in
        "")
            if [[ $cur == -* ]]; then
                words="--exec --env --secret --agent --toolchain --image --publish --dry-run --autonomy --no-autonomy --review --memory --pids --cpus --help --version"
            else
                words="ps stop doctor verify cleanup apply allow deny log image diff reviews discard help"
            fi ;;
        ps) words="--json -q --quiet --help" ;;
        stop)
            if [[ $cur == -* ]]; then words="--all --now --help"; else words=$(_agent_sandbox_ids "$cli"); fi ;;
        doctor) words="--help" ;;
        verify) words="--agent --toolchain --image --secret --json --help" ;;
        image)
            if [[ $prev == build ]]; then words=$(_agent_sandbox_images); else words="build list --help"; fi ;;
        cleanup) words="--homes --help" ;;
        apply)
            if [[ $cur == -* ]]; then words="--include --undo --help"; else mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return 0; fi ;;
        diff) words="--stat --help" ;;
        reviews | discard) words="--help" ;;
        help) [[ $cur == -* ]] || words="ps stop doctor verify cleanup apply allow deny log diff reviews discard help" ;;
        allow | deny)
            [[ $cur == -* ]] && words="--session --help"
            [[ $cmd == allow && $cur == -* ]] && words="$words --save" ;;
        log)
            if [[ $cur == -* ]]; then words="--denied --follow --json --help"; else words=$(_agent_sandbox_ids "$cli"); fi ;;
    esac
    mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}

complete -F _agent_sandbox agent-sandbox
