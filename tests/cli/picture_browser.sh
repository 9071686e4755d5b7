#!/bin/sh
# The --html interleaving picture in a real browser (headless Chromium):
#   picture_browser.sh TSOCHECK_BIN PROGRAM.c SCREENSHOT_DIR
# Writes the page of PROGRAM.c's violation (a store-buffering chain: four
# threads and the harness), screenshots it into SCREENSHOT_DIR, checks the
# screenshot is not blank (many pixels drawn, the red of the stale read among
# them), and clicks a step in the page (a copy with a small test script
# appended): the step is selected and the click names its step, file and line.
# Exit 77 (ctest: skipped) when Chromium is absent, a failure with $CI set.
. "$(dirname "$0")/../skip_or_fail.sh"
chromium=${TSOCHECK_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$chromium" ] && [ -x "$chromium" ] || skip_or_fail "Chromium not found (scripts/setup.sh installs Debian's chromium)"
command -v python3 >/dev/null 2>&1 || skip_or_fail "python3 not found"

bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") program=$2 shots=$3
mkdir -p "$shots" && shots=$(cd "$shots" && pwd) || exit 1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
name=$(basename "$program" .c)
"$bin" check "$program" --no-fences --html "$dir/$name.html" >"$dir/check.txt" 2>&1
status=$?
cd "$dir" || exit 1
[ "$status" -eq 1 ] || { echo "FAIL: expected a violation (exit 1), got $status"; cat check.txt; exit 1; }

browse() {  # browse ARGS... URL: headless Chromium, a private profile, no network
  timeout 90 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$dir/profile" \
    --proxy-server=127.0.0.1:9 --hide-scrollbars "$@" 2>>"$dir/chromium.log"
}
shot="$shots/picture_$name.png"
rm -f "$shot"
browse --window-size=1400,1500 --screenshot="$shot" "file://$dir/$name.html" >/dev/null
[ -s "$shot" ] || { echo "FAIL: no screenshot"; tail -20 chromium.log; exit 1; }
python3 - "$shot" <<'PY' || exit 1
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat, w = 8, b'', 0
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
        assert depth == 8 and ctype in (2, 6) and interlace == 0, 'unexpected PNG format'
        bpp = 3 if ctype == 2 else 4
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
raw, stride, prev, rows = zlib.decompress(idat), w * bpp, None, []
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i] if prev else 0
        c = prev[i - bpp] if prev and i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
drawn = red = 0
colours = set()
for line in rows:
    for x in range(0, stride, bpp):
        r, g, b = line[x], line[x + 1], line[x + 2]
        colours.add((r >> 4, g >> 4, b >> 4))
        drawn += (r, g, b) != (255, 255, 255)
        red += r > 180 and g < 90 and b < 90
share = drawn / (w * h)
print(f'screenshot {w}x{h}: {share:.1%} of the pixels drawn, {len(colours)} colours, {red} red pixels')
assert share > 0.08, 'the page is (nearly) blank'
assert len(colours) > 12, 'too few colours for lanes, steps and arrows'
assert red > 50, 'no red: the stale read and the failing step are not drawn'
PY

# A click on a step: the page's own handler selects it and names {step, file, line}.
sed 's|</body>|<script>var el = document.querySelector(".step.stale"); el.click(); document.body.setAttribute("data-picked", JSON.stringify(window.tsocheckPicked) + " selected=" + el.classList.contains("selected") + " line=" + el.dataset.line);</script></body>|' \
  "$name.html" >click.html
browse --dump-dom --virtual-time-budget=2000 "file://$dir/click.html" >dom.html
picked=$(grep -o 'data-picked="[^"]*"' dom.html | head -1)
echo "clicked the stale read: $picked"
echo "$picked" | grep -q "&quot;file&quot;:&quot;[^&]*$name.c&quot;" || { echo "FAIL: the click named no file"; exit 1; }
echo "$picked" | grep -q 'selected=true line=[1-9]' || { echo "FAIL: the clicked step is not selected"; exit 1; }
line=$(echo "$picked" | sed 's/.*line=\([0-9]*\).*/\1/')
echo "$picked" | grep -q "&quot;line&quot;:$line[,}]" || { echo "FAIL: the click's line is not the step's"; exit 1; }
echo "PASS: screenshot $shot"
