#!/usr/bin/env bash
# make help: harness/help.txt, its @NAME@ filled in from
# harness/definitions.sh (the defaults and lists live there only).
set -eu
here=$(dirname "$0")
# shellcheck source=harness/definitions.sh
. "$here/definitions.sh"
while IFS= read -r line; do
	while [[ $line =~ @([A-Za-z0-9_]+)@ ]]; do
		name=${BASH_REMATCH[1]}
		# shellcheck disable=SC2086,SC2116 # the words, on one line
		line=${line//"@$name@"/$(echo ${!name})}
	done
	printf '%s\n' "$line"
done <"$here/help.txt"
