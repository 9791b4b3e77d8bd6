# zsh -f zsh_complete.zsh SCRIPT LINE...
#
# Completes each LINE as if typed at an interactive zsh prompt followed by TAB,
# with SCRIPT sourced (as `source <(scout-ai completion zsh)` in ~/.zshrc does),
# and prints one line per LINE: the matches zsh would offer, sorted, unique,
# space-separated (empty when there are none).
#
# The interactive zsh runs under zsh/zpty, so ZLE, compsys and the script's own
# compinit/bashcompinit do the work; the matches are captured the usual way
# of zsh completion tests: `compadd` is wrapped to report what it adds (the
# builtin's -A fills an array with the matches of the word being completed),
# between markers printed by a completer that wraps `_complete`.
zmodload zsh/zpty || { print -u2 "zsh_complete: no zsh/zpty module"; exit 3 }
script=$1
shift
zpty scout zsh -f -i || { print -u2 "zsh_complete: could not start zsh under zpty"; exit 3 }
zpty -w scout "PROMPT='' RPROMPT=''; source ${(q)script}"
zpty -w scout 'bindkey "^I" complete-word; zstyle ":completion:*" insert-tab false'
zpty -w scout 'compadd() {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
  local -a hits
  builtin compadd -A hits "$@"
  (( $#hits )) && print -rn -- " ${(j: :)hits}"
  builtin compadd "$@"
}'
zpty -w scout '_capture() { print -rn -- "<<B>>"; _complete; local r=$?; print -r -- "<<E>>"; return r }'
zpty -w scout 'zstyle ":completion:*" completer _capture'
# the output is READY, the echoed command line RE""ADY: the read stops after the output
zpty -w scout 'print "RE""ADY"'
zpty -r scout out '*READY*' || { print -u2 "zsh_complete: the shell did not start"; exit 4 }
for line in "$@"; do
  zpty -w -n scout "$line"$'\t'
  zpty -r scout out '*<<E>>*' || { print -u2 "zsh_complete: no completion for: $line"; exit 5 }
  got=${${out##*<<B>>}%%<<E>>*}
  print -r -- ${(j: :)${(ou)${=got}}}
  # ^U: the next line starts on an empty command line
  zpty -w -n scout $'\C-u'
done
zpty -d scout
