# fish completion for agent-sandbox(1): the commands, their options, the
# running sessions' IDs (from `agent-sandbox ps -q`) and the agents' names.
# Installed as fish/vendor_completions.d/agent-sandbox.fish.

set -l __agent_sandbox_commands ps stop doctor verify cleanup apply allow deny log image diff reviews discard help

# the images the user derived: the folders of the config directory's images/
function __agent_sandbox_images
    set -l d $HOME/.config
    set -q XDG_CONFIG_HOME; and set d $XDG_CONFIG_HOME
    for f in $d/agent-sandbox/images/*/Containerfile
        basename (dirname $f)
    end
end

function __agent_sandbox_ids
    set -l cli (commandline -opc)[1]
    $cli ps -q 2>/dev/null
end

function __agent_sandbox_no_command
    # no command yet, and the options have not handed the rest over
    set -l words (commandline -opc)
    set -e words[1]
    set -l skip 0
    for w in $words
        if test $skip = 1
            set skip 0
            continue
        end
        switch $w
            case --exec --
                return 1
            case --env --secret --memory --pids --cpus --agent --publish --toolchain --image
                set skip 1
            case '-*'
            case '*'
                return 1
        end
    end
    return 0
end

function __agent_sandbox_after_exec
    test (commandline -opc)[-1] = --exec
end

complete -c agent-sandbox -f
complete -c agent-sandbox -n __agent_sandbox_after_exec -x -a '(__fish_complete_command)'
complete -c agent-sandbox -n __agent_sandbox_no_command -a ps -d 'list the running sessions'
complete -c agent-sandbox -n __agent_sandbox_no_command -a stop -d 'end running sessions, as Ctrl-C would'
complete -c agent-sandbox -n __agent_sandbox_no_command -a doctor -d "check this host's set-up"
complete -c agent-sandbox -n __agent_sandbox_no_command -a verify -d 'prove the confinement on this machine'
complete -c agent-sandbox -n __agent_sandbox_no_command -a cleanup -d 'remove what dead sessions left'
complete -c agent-sandbox -n __agent_sandbox_no_command -a apply -d "bring a review's changes into the host tree"
complete -c agent-sandbox -n __agent_sandbox_no_command -a allow -d 'allow a name in a running session'
complete -c agent-sandbox -n __agent_sandbox_no_command -a deny -d 'deny a name in a running session'
complete -c agent-sandbox -n __agent_sandbox_no_command -a log -d "show a session's router log"
complete -c agent-sandbox -n __agent_sandbox_no_command -a image -d 'build an image you derived; list them'
complete -c agent-sandbox -n __agent_sandbox_no_command -a diff -d "a review's changes against the host tree"
complete -c agent-sandbox -n __agent_sandbox_no_command -a reviews -d 'list the pending reviews'
complete -c agent-sandbox -n __agent_sandbox_no_command -a discard -d 'remove a review and its changes'
complete -c agent-sandbox -n __agent_sandbox_no_command -a help -d "this text, or a command's"
complete -c agent-sandbox -n '__fish_seen_subcommand_from help' -x -a "$__agent_sandbox_commands" -d 'command'

complete -c agent-sandbox -n __agent_sandbox_no_command -l exec -d 'run COMMAND instead of the agent'
complete -c agent-sandbox -n __agent_sandbox_no_command -l env -x -a '(set -n)' -d 'pass a variable in'
complete -c agent-sandbox -n __agent_sandbox_no_command -l secret -x -a '(set -n)' -d 'the router holds it, the sandbox gets a stand-in'
complete -c agent-sandbox -n __agent_sandbox_no_command -l agent -x -a 'claude codex crush gemini opencode' -d 'the agent'
complete -c agent-sandbox -n __agent_sandbox_no_command -l toolchain -x -a 'go java node python rust' -d "the agent's image with a toolchain"
complete -c agent-sandbox -n __agent_sandbox_no_command -l image -x -a '(__agent_sandbox_images)' -d 'an image you derived'
complete -c agent-sandbox -n __agent_sandbox_no_command -l publish -x -d "publish a port on the host's loopback"
complete -c agent-sandbox -n __agent_sandbox_no_command -l dry-run -d 'print the session plan and exit'
complete -c agent-sandbox -n __agent_sandbox_no_command -l autonomy -d 'start the agent in its unattended mode'
complete -c agent-sandbox -n __agent_sandbox_no_command -l no-autonomy -d 'start the agent in its own mode: it asks'
complete -c agent-sandbox -n __agent_sandbox_no_command -l review -d "keep the agent's writes apart for diff and apply"
complete -c agent-sandbox -n __agent_sandbox_no_command -l memory -x -a none -d 'memory limit'
complete -c agent-sandbox -n __agent_sandbox_no_command -l pids -x -a none -d 'process limit'
complete -c agent-sandbox -n __agent_sandbox_no_command -l cpus -x -a none -d 'CPU limit'
complete -c agent-sandbox -n __agent_sandbox_no_command -l version -d 'print the versions'
complete -c agent-sandbox -s h -l help -d 'print the usage'

complete -c agent-sandbox -n '__fish_seen_subcommand_from ps' -l json -d 'as JSON'
complete -c agent-sandbox -n '__fish_seen_subcommand_from ps' -s q -l quiet -d 'the IDs alone'
complete -c agent-sandbox -n '__fish_seen_subcommand_from stop' -l all -d 'every running session'
complete -c agent-sandbox -n '__fish_seen_subcommand_from stop' -l now -d 'kill without the grace'
complete -c agent-sandbox -n '__fish_seen_subcommand_from stop log' -a '(__agent_sandbox_ids)' -d 'running session'
complete -c agent-sandbox -n '__fish_seen_subcommand_from verify' -l agent -x -a 'claude codex crush gemini opencode' -d 'the agent'
complete -c agent-sandbox -n '__fish_seen_subcommand_from verify' -l json -d 'as JSON'
complete -c agent-sandbox -n '__fish_seen_subcommand_from verify' -l toolchain -x -a 'go java node python rust' -d 'with a toolchain'
complete -c agent-sandbox -n '__fish_seen_subcommand_from verify' -l image -x -a '(__agent_sandbox_images)' -d 'an image you derived'
complete -c agent-sandbox -n '__fish_seen_subcommand_from verify' -l secret -x -a '(set -n)' -d 'the router holds the variable'
complete -c agent-sandbox -n '__fish_seen_subcommand_from image; and not __fish_seen_subcommand_from build list' -a 'build list'
complete -c agent-sandbox -n '__fish_seen_subcommand_from build' -a '(__agent_sandbox_images)' -d 'derived image'
complete -c agent-sandbox -n '__fish_seen_subcommand_from apply' -l include -r -F -d 'apply this protected path too'
complete -c agent-sandbox -n '__fish_seen_subcommand_from apply' -l undo -x -d "take the review's last apply back"
complete -c agent-sandbox -n '__fish_seen_subcommand_from diff' -l stat -d 'one line a change'
complete -c agent-sandbox -n '__fish_seen_subcommand_from cleanup' -l homes -d 'also the homes of directories that are gone'
complete -c agent-sandbox -n '__fish_seen_subcommand_from allow deny' -l session -x -a '(__agent_sandbox_ids)' -d 'the session'
complete -c agent-sandbox -n '__fish_seen_subcommand_from allow' -l save -d 'also append it to the allowlist file'
complete -c agent-sandbox -n '__fish_seen_subcommand_from log' -l denied -d 'refusals only'
complete -c agent-sandbox -n '__fish_seen_subcommand_from log' -l follow -d 'stream it'
complete -c agent-sandbox -n '__fish_seen_subcommand_from log' -l json -d 'as JSON lines'
