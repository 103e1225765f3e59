# SPDX-License-Identifier: GPL-2.0
# bash completion for the JIFL tools: jifl-swtrace, flowjit, jifl-decode,
# jiflctl. Installed once under each tool's name, where bash-completion's
# loader looks for it. Needs bash-completion's helpers.

# If, from word $1 on, the command line already has the COMMAND that the
# tool runs ("--", or the first word that is no option and no argument of
# an option matched by the pattern $2), or the word being completed is
# that COMMAND, complete it and its arguments and succeed.
_jifl_command()
{
	local i
	for ((i = $1; i < cword; i++)); do
		case ${words[i]} in
		--) _command_offset $((i + 1)); return 0 ;;
		-*=*) ;;
		-*) [[ ${words[i]} == @($2) ]] && ((i++)) ;;
		*) _command_offset $i; return 0 ;;
		esac
	done
	[[ $cur == -* ]] && return 1
	_command_offset $cword
}

_jifl_swtrace()
{
	local cur prev words cword split
	_init_completion -s || return

	case $prev in
	-o | --output | -t | --truth) _filedir; return ;;
	--buildid-dir) _filedir -d; return ;;
	-p | --pid) _pids; return ;;
	--psb-period | --tsc-every | --pmu-type | --cpus | --timeslice | -d | --duration | -m | --max-insns) return ;;
	--switches) COMPREPLY=($(compgen -W 'cpu-wide task' -- "$cur")); return ;;
	esac
	$split && return
	_jifl_command 1 '-o|--output|-t|--truth|-p|--pid|-d|--duration|-m|--max-insns|--psb-period|--tsc-every|--pmu-type|--buildid-dir|--cpus|--timeslice|--switches' &&
		return
	COMPREPLY=($(compgen -W '--output --truth --pid --duration --max-insns --psb-period --tsc-every
		--pmu-type --ret-compression --no-pin --per-cpu --cpus --timeslice
		--switches --buildid-dir --no-buildid-cache --quiet --help --version' -- "$cur"))
} && complete -F _jifl_swtrace jifl-swtrace

_flowjit()
{
	local cur prev words cword split
	_init_completion -s || return

	if ((cword == 1)); then
		COMPREPLY=($(compgen -W 'record report jitdump --help --version' -- "$cur"))
		return
	fi
	case ${words[1]} in
	record)
		case $prev in
		-o | --output) _filedir; return ;;
		-p | --pid) _pids; return ;;
		-u | --user) COMPREPLY=($(compgen -u -- "$cur")); return ;;
		-b | --bufsize) return ;;
		esac
		$split && return
		_jifl_command 2 '-o|--output|-p|--pid|-u|--user|-b|--bufsize' && return
		COMPREPLY=($(compgen -W '--output --pid --user --all-exec --bufsize --quiet
			--force --help' -- "$cur"))
		;;
	report)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--events --help' -- "$cur"))
		else
			_filedir
		fi
		;;
	jitdump)
		case $prev in
		-i | --input | -o | --output) _filedir; return ;;
		-d | --dir) _filedir -d; return ;;
		esac
		$split && return
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--input --output --dir --quiet --help' -- "$cur"))
		else
			_filedir
		fi
		;;
	esac
} && complete -F _flowjit flowjit

_jifl_decode()
{
	local cur prev words cword split
	_init_completion -s -n : || return

	case $prev in
	-i | --input | -f | --flowjit | --pt | --elf | --raw) _filedir; return ;;
	--buildid-dir) _filedir -d; return ;;
	--decoder) COMPREPLY=($(compgen -W 'insn block' -- "$cur")); return ;;
	--cpu) COMPREPLY=($(compgen -W 'auto none' -- "$cur")); return ;;
	--pid | --tid | --time | --filter:*) return ;;
	-F | --fields)
		# the field being typed, after those before its comma
		COMPREPLY=($(compgen -P "${cur%"${cur##*,}"}" -W 'comm tid pid cpu time ip
			sym dso insn' -- "${cur##*,}"))
		return ;;
	esac
	$split && return
	COMPREPLY=($(compgen -W '--input --flowjit --insn --branches --calls
		--stats --buildid-dir --pt --elf --raw --cpu --filter:addr0_cfg --filter:addr0_a
		--filter:addr0_b --filter:addr1_cfg --filter:addr1_a --filter:addr1_b
		--filter:addr2_cfg --filter:addr2_a --filter:addr2_b --filter:addr3_cfg
		--filter:addr3_a --filter:addr3_b --progress --no-progress --decoder
		--jobs --pid --tid --time --fields --help --version' -- "$cur"))
} && complete -F _jifl_decode jifl-decode

_jiflctl()
{
	local cur prev words cword split opts=
	_init_completion -s || return

	if ((cword == 1)); then
		COMPREPLY=($(compgen -W 'status enable disable flush tool stats bbcount
			profile probes run cover --help --version' -- "$cur"))
		return
	fi
	case $prev in
	-s | --syscalls) COMPREPLY=($(compgen -W 'all none' -- "$cur")); return ;;
	-p | --pid) _pids; return ;;
	-t | --top | -n | --size) return ;;
	esac
	$split && return
	case ${words[1]} in
	enable) opts='--syscalls --pid --children' ;;
	stats) opts='--json' ;;
	bbcount | profile)
		_jifl_command 2 '-s|--syscalls|-t|--top' && return
		opts='--top --reset --syscalls --no-children --quiet'
		;;
	run)
		_jifl_command 2 '-s|--syscalls' && return
		opts='--syscalls --no-children --quiet'
		;;
	cover)
		_jifl_command 2 '-s|--syscalls|-n|--size' && return
		opts='--syscalls --raw --size --quiet'
		;;
	tool)
		# null is the one tool every JIFL kernel has; the others modules'.
		((cword == 2)) && COMPREPLY=($(compgen -W 'null bbcount edges probe cover' -- "$cur"))
		return
		;;
	esac
	[[ $cur == -* ]] && COMPREPLY=($(compgen -W "$opts --help" -- "$cur"))
} && complete -F _jiflctl jiflctl

# ex: filetype=sh
