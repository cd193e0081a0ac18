#!/bin/bash
# bash completion (packaging/bash-completion/, installed into
# share/bash-completion/completions): each file registers its function with
# `complete`, and a completion run with COMP_WORDS/COMP_CWORD as bash sets them
# offers the programs' own commands, stages and options, and profile names for
# the runtime's --layers=. The lists come from the programs' --help, so these
# tests run the built programs. No bash-completion package is needed.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
COMPLETIONS="$TSYNC_TOP/packaging/bash-completion"
BIN="$TSYNC_BUILD/bin"

setUp() {
        tsync_test_begin
        tsync_need_built "$BIN/oci-seccomp-tsync" "$BIN/oci-seccomp-tsync-runtime"
        mkdir -p "$TSYNC_TMP/profiles" "$TSYNC_TMP/more"
        echo '{}' >"$TSYNC_TMP/profiles/deny-ptrace.json"
        echo '{}' >"$TSYNC_TMP/profiles/deny-namespaces.json"
        echo '{}' >"$TSYNC_TMP/more/pod.json"
        echo x >"$TSYNC_TMP/profiles/README"
}

tearDown() {
        tsync_test_end
}

# complete_words FILE WORD...: the completions a fresh bash that sourced FILE offers for the
# command line WORD... (the last word is the one being completed; "" for a new one), one a line.
complete_words() {
        local file=$1
        shift
        bash --norc --noprofile -c '
                . "$1" || exit 1
                shift
                COMP_WORDS=("$@")
                COMP_CWORD=$(($# - 1))
                fn=$(complete -p "${1##*/}" | sed -n "s/.*-F \([^ ]*\) .*/\1/p")
                "$fn" || exit 1
                printf "%s\n" "${COMPREPLY[@]}"' bash "$COMPLETIONS/$file" "$@"
}

testEachFileRegistersItsFunctionForItsProgram() {
        local name
        for name in oci-seccomp-tsync oci-seccomp-tsync-runtime; do
                assertTrue "$name: installed under its program's name" "[ -f $COMPLETIONS/$name ]"
                out=$(bash --norc --noprofile -c '. "$1" && complete -p "$2"' bash "$COMPLETIONS/$name" "$name" 2>&1)
                assertEquals "complete -p $name" 0 $?
                assertContains "$out" " -F _"
                assertContains "$out" " $name"
        done
}

testTheCommandsAreTheProgramsOwn() {
        assertEquals "compile
check" "$(complete_words oci-seccomp-tsync "$BIN/oci-seccomp-tsync" c)"
        assertEquals "compile check explain dump inject hook status lockdown --help --version" \
                "$(complete_words oci-seccomp-tsync "$BIN/oci-seccomp-tsync" "" | tr '\n' ' ' | sed 's/ $//')"
}

testHookCompletesItsStages() {
        assertEquals "precreate prestart createRuntime poststop --help" \
                "$(complete_words oci-seccomp-tsync "$BIN/oci-seccomp-tsync" hook "" | tr '\n' ' ' | sed 's/ $//')"
        assertEquals "poststop" "$(complete_words oci-seccomp-tsync "$BIN/oci-seccomp-tsync" hook posts)"
}

testASubcommandsOptionsAndTheirValuesAreOffered() {
        local out
        out=$(complete_words oci-seccomp-tsync "$BIN/oci-seccomp-tsync" inject --)
        for opt in --profile --replace --exec-once --record --no-hooks; do
                echo "$out" | grep -qx -- "$opt" || fail "inject: no $opt in: $out"
        done
        assertEquals "--record-format" \
                "$(complete_words oci-seccomp-tsync "$BIN/oci-seccomp-tsync" inject --record-f)"
        assertEquals "oci
docker" "$(complete_words oci-seccomp-tsync "$BIN/oci-seccomp-tsync" inject --record-format "")"
        assertEquals "docker" "$(complete_words oci-seccomp-tsync "$BIN/oci-seccomp-tsync" check --format d)"
        # Options in the left column beside a TARGET's words too.
        out=$(complete_words oci-seccomp-tsync "$BIN/oci-seccomp-tsync" status --)
        for opt in --pid --runtime --root --podman --docker --json --all --containerd-root --only-roots; do
                echo "$out" | grep -qx -- "$opt" || fail "status: no $opt in: $out"
        done
        assertEquals "crun" "$(complete_words oci-seccomp-tsync "$BIN/oci-seccomp-tsync" status --runtime c)"
}

testTheRuntimeOffersOurOptionsThenTheRealRuntimesCommands() {
        assertEquals "--layers=" "$(complete_words oci-seccomp-tsync-runtime "$BIN/oci-seccomp-tsync-runtime" --lay)"
        local out
        out=$(complete_words oci-seccomp-tsync-runtime "$BIN/oci-seccomp-tsync-runtime" --)
        for opt in --mode= --runtime= --profile-dir= --no-cache --root --log-format; do
                echo "$out" | grep -qx -- "$opt" || fail "no $opt in: $out"
        done
        # runc's commands, past a global option and its value.
        assertEquals "delete" \
                "$(complete_words oci-seccomp-tsync-runtime "$BIN/oci-seccomp-tsync-runtime" --root /run/x de)"
        assertEquals "--mode=replace" \
                "$(complete_words oci-seccomp-tsync-runtime "$BIN/oci-seccomp-tsync-runtime" --mode=r)"
        assertEquals "replace" \
                "$(complete_words oci-seccomp-tsync-runtime "$BIN/oci-seccomp-tsync-runtime" --mode = r)"
}

testTheRuntimesLayersAreTheProfileNamesOfItsDirectories() {
        local rt="$BIN/oci-seccomp-tsync-runtime"
        # --opt=value as one word (no '=' in COMP_WORDBREAKS) ...
        assertEquals "--layers=deny-namespaces
--layers=deny-ptrace" \
                "$(complete_words oci-seccomp-tsync-runtime "$rt" --profile-dir="$TSYNC_TMP/profiles" --layers=deny)"
        # ... and as bash splits it by default, the last name of a comma-separated list, every directory.
        assertEquals "deny-ptrace,pod" \
                "$(complete_words oci-seccomp-tsync-runtime "$rt" --profile-dir = "$TSYNC_TMP/profiles" \
                        --profile-dir = "$TSYNC_TMP/more" --layers = deny-ptrace,p)"
        assertEquals "" \
                "$(complete_words oci-seccomp-tsync-runtime "$rt" --profile-dir="$TSYNC_TMP/profiles" --layers=READ)"
}

testLockdownsLayersAreTheProfileNamesOfItsDirectories() {
        local oci="$BIN/oci-seccomp-tsync" lockdown_help_dirs
        assertEquals "deny-namespaces
deny-ptrace" "$(complete_words oci-seccomp-tsync "$oci" lockdown --profile-dir "$TSYNC_TMP/profiles" --layers deny)"
        assertEquals "deny-ptrace,pod" \
                "$(complete_words oci-seccomp-tsync "$oci" lockdown --profile-dir "$TSYNC_TMP/profiles" \
                        --profile-dir "$TSYNC_TMP/more" --layers deny-ptrace,p)"
        # No --profile-dir: the directories lockdown's --help names (the first is /etc's).
        lockdown_help_dirs=$("$oci" lockdown --help | tr '\n' ' ' | sed -E 's#/ +#/#g; s/ +/ /g' |
                sed -n 's/.*--profile-dir DIR where names are looked up (repeatable; default \([^,]*\), then \([^)]*\)).*/\1 \2/p')
        assertEquals "/etc/oci-seccomp-tsync/profiles" "${lockdown_help_dirs%% *}"
}

testTheRuntimesDefaultProfileDirectoriesAreItsOwn() {
        # What --help names is what the completion reads when no --profile-dir is given.
        "$BIN/oci-seccomp-tsync-runtime" --help >"$TSYNC_TMP/help"
        grep -qE -- '--profile-dir=DIR .*\(repeatable; default /etc/oci-seccomp-tsync/profiles, then /.*/share/oci-seccomp-tsync/profiles\)$' \
                "$TSYNC_TMP/help" || fail "$(grep -- --profile-dir "$TSYNC_TMP/help")"
}

. shunit2
