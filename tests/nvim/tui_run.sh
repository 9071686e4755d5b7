#!/bin/sh
# Neovim in a terminal (tmux), set up with the README's snippet verbatim (the
# clone's path filled in): the lens line is drawn, <leader>cl runs "show
# trace" (quickfix list + step float), the lens stays drawn, ]s moves the
# float to step 2, the statusline shows the check's state; 80 columns, and no
# hit-enter prompt after the lens pick, ]s or :TsocheckTrace.
#   tui_run.sh TSOCHECK_BIN SAMPLES_DIR
# Exit 77 (ctest: skipped) when nvim or tmux is missing, a failure with $CI set.
. "$(dirname "$0")/../skip_or_fail.sh"
. "$(dirname "$0")/lib.sh"
command -v nvim >/dev/null 2>&1 || skip_or_fail "nvim not found (scripts/setup.sh installs Debian's neovim)"
command -v tmux >/dev/null 2>&1 || skip_or_fail "tmux not found"

here=$(cd "$(dirname "$0")" && pwd)
tree=$(cd "$here/../.." && pwd)
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
dir=$(mktemp -d)
cp "$2/litmus/sb.c" "$dir/"
readme_lua "$tree/README.md" 'Neovim (0.7+, built-in client)' >"$dir/init.lua"
server_path "$bin" "$dir"
sock="tsocheck-tui-$$"
t() { tmux -L "$sock" "$@"; }
cleanup() { t kill-server 2>/dev/null; cd / && rm -rf "$dir"; }
trap cleanup EXIT
cd "$dir" || exit 1
t new-session -d -s nv -x 80 -y 45 "env PATH='$path' nvim --noplugin -n -i NONE -u '$dir/init.lua' '$dir/sb.c'"
screen() { t capture-pane -p -t nv; }
# wait_for TEXT WHAT: up to 60 s for TEXT on the screen.
wait_for() {
  i=0
  while [ $i -lt 300 ]; do
    screen | grep -qF -- "$1" && { echo "ok $2"; return 0; }
    sleep 0.2; i=$((i + 1))
  done
  echo "FAIL $2: no \"$1\" on the screen:"; screen; exit 1
}
wait_for '✗ TSO violation — show trace | re-run' 'lens line drawn after the check'
wait_for 'tsocheck: ✗ 1 violation under TSO' 'statusline'
line=$(grep -n '^TSOCHECK void store_buffering' "$dir/sb.c" | cut -d: -f1)
t send-keys -t nv ":$line" Enter
t send-keys -t nv '\cl'
wait_for 'Code lenses:' '<leader>cl offers the lenses of the line'
t send-keys -t nv '1' Enter
wait_for 'store buffers: ' 'show trace: step float'
wait_for '(1/' 'show trace: float at step 1'
wait_for 'step 3 · T1 · store x = 1 (buffered)' 'show trace: quickfix list open'
wait_for 'show trace | re-run' 'lens line drawn again after running it (the float covers its start)'
# no_prompt WHAT: after a moment, no hit-enter prompt on the screen.
no_prompt() {
  sleep 1
  if screen | grep -qF 'Press ENTER'; then echo "FAIL $1: a hit-enter prompt:"; screen; exit 1; fi
  echo "ok $1: no hit-enter prompt"
}
no_prompt 'lens pick'
t send-keys -t nv ']s'
wait_for '(2/' ']s: float at step 2'
no_prompt ']s'
t send-keys -t nv ':TsocheckTrace' Enter
wait_for 'steps in the quickfix list' ':TsocheckTrace: message'
no_prompt ':TsocheckTrace'
t send-keys -t nv ':qa!' Enter
echo "PASS Neovim TUI: lenses, show trace (quickfix + float), ]s, statusline"
