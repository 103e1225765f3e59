#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print, one a line, what bash completion offers for a command line, as an
# interactive bash with bash-completion would: its loader finds the
# command's completion under DATADIR/bash-completion/completions only.
#
#   complete.sh DATADIR COMMAND WORD...   (the last WORD is being completed)
set -u

datadir=$1
shift
export XDG_DATA_DIRS=$datadir BASH_COMPLETION_USER_DIR=/nonexistent
. /usr/share/bash-completion/bash_completion || exit 1
# compopt only tells bash how to show the candidates, and works only
# while bash itself completes.
compopt() { :; }

COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
__load_completion "$1" || { echo "complete.sh: no completion for $1" >&2; exit 1; }
spec=$(complete -p "$1") || exit 1
fn=${spec#*-F }
fn=${fn%% *}
"$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
((${#COMPREPLY[@]})) && printf '%s\n' "${COMPREPLY[@]}"
exit 0
